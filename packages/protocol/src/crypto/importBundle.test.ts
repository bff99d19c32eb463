import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { toHex } from "./hex";
import {
  encryptToImportKey,
  IMPORT_BUNDLE_VERSION,
  openEncryptedImportBundle,
  readEncryptedImportBundle,
  sealImportBundle,
  verifyImportBundle,
} from "./importBundle";
import { decodeImportSecret, encodeImportSecret, ImportSecretError, parseImportSecret } from "./importSecret";
import { generateP256PrivateKey, p256PublicKeyFromPrivate } from "./p256";
import { signP256Der } from "./stamp";

const ORG = "org-1";
const USER = "user-1";
const NOW = 1_800_000_000_000;
// The BIP-39 test vector's words: a valid checksum. The checker below stands in for the wordlist check.
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const isMnemonic = (m: string) => m === MNEMONIC;

async function fixture() {
  const signer = generateP256PrivateKey();
  const importKey = generateP256PrivateKey();
  const importBundle = await sealImportBundle({
    targetPublicKey: p256PublicKeyFromPrivate(importKey, true),
    organizationId: ORG,
    userId: USER,
    expiresAtMs: NOW + 60_000,
    signerPublicKey: p256PublicKeyFromPrivate(signer, true),
    sign: async (data) => signP256Der(data, signer),
  });
  const pinned = toHex(p256PublicKeyFromPrivate(signer, false));
  const verify = (over: Partial<Parameters<typeof verifyImportBundle>[0]> = {}) =>
    verifyImportBundle({
      importBundle,
      organizationId: ORG,
      userId: USER,
      signerPublicKey: pinned,
      nowMs: NOW,
      ...over,
    });
  return { importBundle, importKey, signer, pinned, verify };
}

describe("import bundle (the service's key for one wallet import)", () => {
  it("has the export bundle's shape, and seals a secret only the import key opens", async () => {
    const { importBundle, importKey, pinned, verify } = await fixture();
    const bundle = JSON.parse(importBundle) as Record<string, string>;
    expect(Object.keys(bundle).sort()).toEqual(["data", "dataSignature", "enclaveQuorumPublic", "version"]);
    expect(bundle.version).toBe(IMPORT_BUNDLE_VERSION);
    expect(bundle.enclaveQuorumPublic).toBe(pinned);
    const data = JSON.parse(Buffer.from(bundle.data as string, "hex").toString("utf8"));
    expect(Object.keys(data).sort()).toEqual(["expiresAtMs", "organizationId", "targetPublic", "userId"]);

    const { targetPublicKey } = verify();
    expect(targetPublicKey).toBe(toHex(p256PublicKeyFromPrivate(importKey, false)));
    const plaintext = encodeImportSecret(
      parseImportSecret("mnemonic", `  ${MNEMONIC.toUpperCase()} `, isMnemonic),
    );
    const encryptedBundle = await encryptToImportKey({ plaintext, targetPublicKey });
    expect(Object.keys(JSON.parse(encryptedBundle)).sort()).toEqual([
      "ciphertext",
      "encappedPublic",
      "targetPublic",
    ]);
    expect(encryptedBundle).not.toContain("abandon");
    expect(readEncryptedImportBundle(encryptedBundle).targetPublicKey).toBe(targetPublicKey);
    const opened = await openEncryptedImportBundle({ encryptedBundle, importPrivateKey: importKey });
    expect(decodeImportSecret(opened, isMnemonic)).toEqual({ kind: "mnemonic", secret: MNEMONIC });
    // Another key does not open it; a changed byte does not open.
    await expect(
      openEncryptedImportBundle({ encryptedBundle, importPrivateKey: generateP256PrivateKey() }),
    ).rejects.toThrow("could not be decrypted");
    const sealed = JSON.parse(encryptedBundle) as Record<string, string>;
    const changed = JSON.stringify({ ...sealed, ciphertext: `${sealed.ciphertext?.slice(0, -2)}00` });
    await expect(
      openEncryptedImportBundle({ encryptedBundle: changed, importPrivateKey: importKey }),
    ).rejects.toThrow("could not be decrypted");
  });

  it("refuses another signing key, a forged signature, another user, an expired key", async () => {
    const { importBundle, verify } = await fixture();
    const other = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));
    expect(() => verify({ signerPublicKey: other })).toThrow("signed by another key");
    const bundle = JSON.parse(importBundle) as Record<string, string>;
    const forged = JSON.stringify({ ...bundle, data: `${bundle.data?.slice(0, -2)}00` });
    expect(() => verify({ importBundle: forged })).toThrow("signature is not valid");
    expect(() => verify({ userId: "someone-else" })).toThrow("for another user");
    expect(() => verify({ organizationId: "another-org" })).toThrow("for another user");
    expect(() => verify({ nowMs: NOW + 60_000 })).toThrow("has expired");
    expect(() => verify({ importBundle: "{" })).toThrow("not JSON");
    expect(() => readEncryptedImportBundle('{"ciphertext":"00"}')).toThrow("missing a field");
  });
});

describe("import secrets: what a user pastes, in its usual forms", () => {
  const evmKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
  const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const secretKey = new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);

  it("reads an EVM key with or without 0x, in either case", () => {
    for (const input of [evmKey, `0x${evmKey}`, ` 0X${evmKey.toUpperCase()}\n`])
      expect(parseImportSecret("evm_private_key", input, isMnemonic)).toEqual({
        kind: "evm_private_key",
        secret: evmKey,
      });
  });

  it("reads a Solana key as base58 of the 64-byte secret key, of the seed, as a key file, or as hex", () => {
    const expected = { kind: "solana_private_key", secret: toHex(seed) };
    for (const input of [
      base58.encode(secretKey),
      base58.encode(seed),
      JSON.stringify([...secretKey]),
      toHex(seed),
    ])
      expect(parseImportSecret("solana_private_key", input, isMnemonic)).toEqual(expected);
  });

  it("refuses what is not of its kind, with a code per kind", () => {
    const refused = (kind: Parameters<typeof parseImportSecret>[0], input: string) => {
      try {
        parseImportSecret(kind, input, isMnemonic);
        return "accepted";
      } catch (e) {
        return e instanceof ImportSecretError ? e.code : "other";
      }
    };
    expect(refused("mnemonic", "abandon abandon abandon")).toBe("INVALID_PHRASE");
    expect(refused("mnemonic", `${MNEMONIC} zoo`)).toBe("INVALID_PHRASE");
    expect(refused("evm_private_key", evmKey.slice(2))).toBe("INVALID_EVM_KEY");
    expect(refused("evm_private_key", "00".repeat(32))).toBe("INVALID_EVM_KEY");
    expect(refused("evm_private_key", `${"ff".repeat(32)}`)).toBe("INVALID_EVM_KEY");
    expect(refused("evm_private_key", MNEMONIC)).toBe("INVALID_EVM_KEY");
    // A 64-byte key whose second half is not the first half's public key.
    const mismatched = new Uint8Array([...seed, ...seed]);
    expect(refused("solana_private_key", base58.encode(mismatched))).toBe("INVALID_SOLANA_KEY");
    expect(refused("solana_private_key", "0OIl")).toBe("INVALID_SOLANA_KEY");
    expect(refused("solana_private_key", "[1,2,3]")).toBe("INVALID_SOLANA_KEY");
    expect(() =>
      decodeImportSecret(new TextEncoder().encode('{"kind":"other","secret":"x"}'), isMnemonic),
    ).toThrow(ImportSecretError);
  });
});
