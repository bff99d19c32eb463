import { utf8ToBytes } from "@noble/hashes/utils";
import { describe, expect, it } from "vitest";
import { generateTargetKeyPair } from "./bundle";
import { EXPORT_BUNDLE_VERSION, openExportBundle, sealExportBundle } from "./exportBundle";
import { toHex } from "./hex";
import { generateP256PrivateKey, p256PublicKeyFromPrivate } from "./p256";
import { signP256Der } from "./stamp";

const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ORG = "org-1";

async function fixture() {
  const signer = generateP256PrivateKey();
  const target = await generateTargetKeyPair(false);
  const exportBundle = await sealExportBundle({
    plaintext: utf8ToBytes(MNEMONIC),
    targetPublicKey: target.publicKeyHex,
    organizationId: ORG,
    signerPublicKey: p256PublicKeyFromPrivate(signer, true),
    sign: async (data) => signP256Der(data, signer),
  });
  const pinned = toHex(p256PublicKeyFromPrivate(signer, false));
  const open = (over: Partial<Parameters<typeof openExportBundle>[0]> = {}) =>
    openExportBundle({
      exportBundle,
      targetPrivateKey: target.privateKey,
      targetPublicKey: target.publicKeyHex,
      organizationId: ORG,
      signerPublicKey: pinned,
      ...over,
    });
  return { exportBundle, pinned, open, bundle: JSON.parse(exportBundle) as Record<string, string> };
}

describe("export bundle (DESIGN §3.4)", () => {
  it("has the documented shape and opens with a non-extractable WebCrypto key", async () => {
    for (let i = 0; i < 8; i++) {
      // Several keys: both y parities of the target key must work.
      const { bundle, pinned, open } = await fixture();
      expect(Object.keys(bundle).sort()).toEqual(["data", "dataSignature", "enclaveQuorumPublic", "version"]);
      expect(bundle.version).toBe(EXPORT_BUNDLE_VERSION);
      expect(bundle.enclaveQuorumPublic).toBe(pinned);
      expect(bundle.enclaveQuorumPublic).toMatch(/^04[0-9a-f]{128}$/);
      const data = JSON.parse(Buffer.from(bundle.data as string, "hex").toString("utf8"));
      expect(Object.keys(data).sort()).toEqual(["ciphertext", "encappedPublic", "organizationId"]);
      expect(data.encappedPublic).toMatch(/^04[0-9a-f]{128}$/);
      expect(new TextDecoder().decode(await open())).toBe(MNEMONIC);
    }
  });

  it("accepts the pinned key in either form", async () => {
    const { open, pinned } = await fixture();
    const compressed = `${BigInt(`0x${pinned.slice(-2)}`) % 2n === 0n ? "02" : "03"}${pinned.slice(2, 66)}`;
    expect(new TextDecoder().decode(await open({ signerPublicKey: compressed }))).toBe(MNEMONIC);
  });

  it("refuses each defect before decrypting, with a stable code", async () => {
    const { exportBundle, bundle, open } = await fixture();
    const other = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));
    const flip = (hex: string) => `${hex.slice(0, -2)}${hex.endsWith("00") ? "01" : "00"}`;
    const cases: [string, Promise<Uint8Array>, string][] = [
      ["not JSON", open({ exportBundle: "{" }), "not JSON"],
      ["too long", open({ exportBundle: " ".repeat(20_000) }), "invalid length"],
      ["version", open({ exportBundle: JSON.stringify({ ...bundle, version: "v2" }) }), "another version"],
      ["missing", open({ exportBundle: JSON.stringify({ ...bundle, dataSignature: undefined }) }), "missing"],
      ["other key", open({ signerPublicKey: other }), "signed by another key"],
      [
        "swapped key",
        open({ exportBundle: JSON.stringify({ ...bundle, enclaveQuorumPublic: other }) }),
        "another key",
      ],
      [
        "data",
        open({ exportBundle: JSON.stringify({ ...bundle, data: flip(bundle.data as string) }) }),
        "signature",
      ],
      ["signature", open({ exportBundle: JSON.stringify({ ...bundle, dataSignature: "30" }) }), "signature"],
      ["not hex", open({ exportBundle: JSON.stringify({ ...bundle, data: "zz" }) }), "not hex"],
      ["organization", open({ organizationId: "org-2" }), "another organization"],
    ];
    for (const [name, promise, message] of cases) {
      const error = await promise.then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect({ name, code: error?.code, matches: error?.message.includes(message) }).toEqual({
        name,
        code: "INVALID_BUNDLE",
        matches: true,
      });
    }
    // Another target key: the signature holds, HPKE does not open.
    const stranger = await generateTargetKeyPair(false);
    await expect(
      open({ targetPrivateKey: stranger.privateKey, targetPublicKey: stranger.publicKeyHex }),
    ).rejects.toMatchObject({ code: "INVALID_BUNDLE" });
    expect(exportBundle.length).toBeLessThan(2000);
  });
});
