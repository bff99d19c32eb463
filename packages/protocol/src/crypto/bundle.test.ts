import { describe, expect, it, vi } from "vitest";
import {
  base58checkDecode,
  base58checkEncode,
  generateTargetKeyPair,
  openCredentialBundle,
  sealCredentialBundle,
} from "./bundle";
import { BundleError } from "./errors";
import { concatBytes, fromHex, toHex } from "./hex";
import { compressP256PublicKey, generateP256PrivateKey, p256PublicKeyFromPrivate } from "./p256";

function rawTarget() {
  const privateKey = generateP256PrivateKey();
  return {
    privateKey,
    uncompressed: toHex(p256PublicKeyFromPrivate(privateKey, false)),
    compressed: toHex(p256PublicKeyFromPrivate(privateKey, true)),
  };
}

const secret = () => crypto.getRandomValues(new Uint8Array(32));

async function expectBundleError(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BundleError);
  expect((error as BundleError).code).toBe("INVALID_BUNDLE");
}

/** Re-encodes a bundle with one payload byte flipped, keeping the checksum valid. */
function flipPayloadByte(bundle: string, index: number): string {
  const payload = base58checkDecode(bundle);
  payload[index]! ^= 0x01;
  return base58checkEncode(payload);
}

describe("base58check", () => {
  it("matches the well-known Bitcoin encoding", () => {
    // Version byte 0 + 20 zero bytes: the "burn" address.
    expect(base58checkEncode(new Uint8Array(21))).toBe("1111111111111111111114oLvT2");
    expect(base58checkDecode("1111111111111111111114oLvT2")).toEqual(new Uint8Array(21));
  });

  it("round trips and rejects a bad checksum or alphabet with BundleError", () => {
    const data = crypto.getRandomValues(new Uint8Array(81));
    const encoded = base58checkEncode(data);
    expect(base58checkDecode(encoded)).toEqual(data);
    const last = encoded.at(-1) === "2" ? "3" : "2";
    expect(() => base58checkDecode(encoded.slice(0, -1) + last)).toThrow(BundleError);
    expect(() => base58checkDecode("0OIl")).toThrow(BundleError);
    expect(() => base58checkDecode("")).toThrow(BundleError);
  });
});

describe("credential bundle round trips", () => {
  it("raw private key, uncompressed and compressed target key in any combination", async () => {
    const target = rawTarget();
    for (const sealTo of [target.uncompressed, target.compressed]) {
      const plaintext = secret();
      const bundle = await sealCredentialBundle({ plaintext, targetPublicKey: sealTo });
      expect(base58checkDecode(bundle).length).toBe(33 + plaintext.length + 16);
      for (const openWith of [target.uncompressed, target.compressed, `0x${target.uncompressed}`]) {
        const opened = await openCredentialBundle({
          bundle,
          targetPrivateKey: target.privateKey,
          targetPublicKey: openWith,
        });
        expect(opened).toEqual(plaintext);
      }
    }
  });

  it("non-extractable WebCrypto target keys (both y parities)", async () => {
    const parities = new Set<number>();
    for (let i = 0; i < 16; i++) {
      const pair = await generateTargetKeyPair(false);
      expect(pair.privateKey.extractable).toBe(false);
      await expect(crypto.subtle.exportKey("pkcs8", pair.privateKey)).rejects.toThrow();
      expect(pair.publicKeyHex).toMatch(/^04[0-9a-f]{128}$/);
      parities.add(fromHex(pair.publicKeyHex)[64]! & 1);

      const plaintext = secret();
      const compressed = toHex(compressP256PublicKey(fromHex(pair.publicKeyHex)));
      const bundle = await sealCredentialBundle({ plaintext, targetPublicKey: compressed });
      for (const targetPublicKey of [pair.publicKeyHex, compressed]) {
        expect(
          await openCredentialBundle({ bundle, targetPrivateKey: pair.privateKey, targetPublicKey }),
        ).toEqual(plaintext);
      }
    }
    // 2^-15 chance of a false failure; the point is to cover the odd-y case @hpke/core cannot re-derive.
    expect(parities.size).toBe(2);
  });

  it("extractable target keys export their private key", async () => {
    const pair = await generateTargetKeyPair(true);
    expect(pair.privateKey.extractable).toBe(true);
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    expect(jwk.d).toBeTypeOf("string");
    const plaintext = secret();
    const bundle = await sealCredentialBundle({ plaintext, targetPublicKey: pair.publicKeyHex });
    const raw = fromHex(Buffer.from(jwk.d!, "base64url").toString("hex"));
    expect(
      await openCredentialBundle({ bundle, targetPrivateKey: raw, targetPublicKey: pair.publicKeyHex }),
    ).toEqual(plaintext);
  });

  it("opens where the platform's crypto refuses compressed points (noble decompresses)", async () => {
    const target = rawTarget();
    const plaintext = secret();
    const bundle = await sealCredentialBundle({ plaintext, targetPublicKey: target.uncompressed });
    const importKey = crypto.subtle.importKey.bind(crypto.subtle);
    const spy = vi
      .spyOn(crypto.subtle, "importKey")
      .mockImplementation(((...args: Parameters<typeof importKey>) =>
        args[0] === "raw" && (args[1] as Uint8Array).length === 33
          ? Promise.reject(new DOMException("compressed points unsupported", "NotSupportedError"))
          : importKey(...args)) as typeof importKey);
    try {
      expect(
        await openCredentialBundle({
          bundle,
          targetPrivateKey: target.privateKey,
          targetPublicKey: target.compressed,
        }),
      ).toEqual(plaintext);
      expect(spy.mock.calls.some((c) => c[0] === "raw" && (c[1] as Uint8Array).length === 33)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("seals arbitrary-length plaintexts, including empty", async () => {
    const target = rawTarget();
    for (const plaintext of [new Uint8Array(), secret(), crypto.getRandomValues(new Uint8Array(500))]) {
      const bundle = await sealCredentialBundle({ plaintext, targetPublicKey: target.compressed });
      expect(
        await openCredentialBundle({
          bundle,
          targetPrivateKey: target.privateKey,
          targetPublicKey: target.uncompressed,
        }),
      ).toEqual(plaintext);
    }
  });

  it("uses a fresh ephemeral key every time", async () => {
    const target = rawTarget();
    const plaintext = secret();
    const a = await sealCredentialBundle({ plaintext, targetPublicKey: target.uncompressed });
    const b = await sealCredentialBundle({ plaintext, targetPublicKey: target.uncompressed });
    expect(a).not.toBe(b);
  });
});

describe("credential bundle failures", () => {
  const target = rawTarget();
  const open = (bundle: string, t = target, targetPublicKey = t.uncompressed) =>
    openCredentialBundle({ bundle, targetPrivateKey: t.privateKey, targetPublicKey });

  it("tampered ciphertext, tag or encapsulated key → BundleError", async () => {
    const bundle = await sealCredentialBundle({ plaintext: secret(), targetPublicKey: target.uncompressed });
    const length = base58checkDecode(bundle).length;
    for (const index of [0, 1, 20, 32, 33, 50, length - 16, length - 1]) {
      await expectBundleError(open(flipPayloadByte(bundle, index)));
    }
  });

  it("a flipped character (bad checksum) → BundleError", async () => {
    const bundle = await sealCredentialBundle({ plaintext: secret(), targetPublicKey: target.uncompressed });
    const i = Math.floor(bundle.length / 2);
    const swapped = bundle[i] === "z" ? "y" : "z";
    await expectBundleError(open(bundle.slice(0, i) + swapped + bundle.slice(i + 1)));
  });

  it("wrong private key, or a public key that does not match it → BundleError", async () => {
    const bundle = await sealCredentialBundle({ plaintext: secret(), targetPublicKey: target.uncompressed });
    const other = rawTarget();
    await expectBundleError(open(bundle, other));
    await expectBundleError(open(bundle, target, other.uncompressed));
    const pair = await generateTargetKeyPair(false);
    await expectBundleError(
      openCredentialBundle({ bundle, targetPrivateKey: pair.privateKey, targetPublicKey: pair.publicKeyHex }),
    );
  });

  it("bad lengths and shapes → BundleError", async () => {
    const enc = p256PublicKeyFromPrivate(generateP256PrivateKey(), true);
    await expectBundleError(open(""));
    await expectBundleError(open(base58checkEncode(new Uint8Array(10))));
    await expectBundleError(open(base58checkEncode(enc)));
    await expectBundleError(open(base58checkEncode(concatBytes(enc, new Uint8Array(15)))));
    // Exactly enc + tag (an empty plaintext) is the shortest well-formed bundle; this one is forged.
    await expectBundleError(open(base58checkEncode(concatBytes(enc, new Uint8Array(16)))));
    // 33 bytes that are not a point on the curve.
    await expectBundleError(open(base58checkEncode(concatBytes(new Uint8Array([0x02]), new Uint8Array(80)))));
    await expectBundleError(open("1".repeat(5000)));
  });

  it("invalid target keys are caller errors (TypeError), not bundle errors", async () => {
    const bundle = await sealCredentialBundle({ plaintext: secret(), targetPublicKey: target.uncompressed });
    await expect(sealCredentialBundle({ plaintext: secret(), targetPublicKey: "04abcd" })).rejects.toThrow(
      TypeError,
    );
    await expect(
      sealCredentialBundle({ plaintext: secret(), targetPublicKey: `04${"00".repeat(64)}` }),
    ).rejects.toThrow(TypeError);
    await expect(
      openCredentialBundle({
        bundle,
        targetPrivateKey: new Uint8Array(31),
        targetPublicKey: target.uncompressed,
      }),
    ).rejects.toThrow(TypeError);
    const signingKey = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
    ]);
    await expect(
      openCredentialBundle({
        bundle,
        targetPrivateKey: signingKey.privateKey,
        targetPublicKey: target.uncompressed,
      }),
    ).rejects.toThrow(TypeError);
  });
});
