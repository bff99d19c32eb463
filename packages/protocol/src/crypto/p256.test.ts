import { createECDH } from "node:crypto";
import { p256 } from "@noble/curves/nist";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "./hex";
import {
  compressP256PublicKey,
  generateP256PrivateKey,
  isP256PublicKey,
  p256PublicKeyFromPrivate,
  uncompressP256PublicKey,
} from "./p256";

describe("hex", () => {
  it("encodes lowercase without prefix and decodes with or without 0x, in either case", () => {
    expect(toHex(new Uint8Array([0, 1, 0xab, 0xff]))).toBe("0001abff");
    expect(toHex(new Uint8Array())).toBe("");
    expect(fromHex("0001abff")).toEqual(new Uint8Array([0, 1, 0xab, 0xff]));
    expect(fromHex("0x0001ABFF")).toEqual(new Uint8Array([0, 1, 0xab, 0xff]));
    expect(fromHex("0X")).toEqual(new Uint8Array());
    expect(fromHex("")).toEqual(new Uint8Array());
  });

  it.each(["0", "abc", "0xabc", "zz", "0x0g", " 00", "00 ", "0x0x00", "+1"])("rejects %j", (bad) => {
    expect(() => fromHex(bad)).toThrow(TypeError);
  });
});

describe("P-256 keys", () => {
  it("derives the same public keys as node:crypto, in both forms", () => {
    for (let i = 0; i < 20; i++) {
      const privateKey = generateP256PrivateKey();
      expect(privateKey).toHaveLength(32);
      const ecdh = createECDH("prime256v1");
      ecdh.setPrivateKey(privateKey);
      const uncompressed = p256PublicKeyFromPrivate(privateKey, false);
      const compressed = p256PublicKeyFromPrivate(privateKey, true);
      expect(toHex(uncompressed)).toBe(ecdh.getPublicKey("hex", "uncompressed"));
      expect(toHex(compressed)).toBe(ecdh.getPublicKey("hex", "compressed"));
      expect(compressP256PublicKey(uncompressed)).toEqual(compressed);
      expect(compressP256PublicKey(compressed)).toEqual(compressed);
      expect(uncompressP256PublicKey(compressed)).toEqual(uncompressed);
      expect(uncompressP256PublicKey(uncompressed)).toEqual(uncompressed);
    }
  });

  it("generates distinct valid scalars", () => {
    const keys = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const key = generateP256PrivateKey();
      const scalar = BigInt(`0x${toHex(key)}`);
      expect(scalar > 0n && scalar < p256.Point.Fn.ORDER).toBe(true);
      keys.add(toHex(key));
    }
    expect(keys.size).toBe(50);
  });

  it("rejects invalid private keys", () => {
    const order = fromHex(p256.Point.Fn.ORDER.toString(16));
    for (const bad of [new Uint8Array(31), new Uint8Array(33), new Uint8Array(32), order]) {
      expect(() => p256PublicKeyFromPrivate(bad, true)).toThrow();
    }
  });

  it("rejects public keys of the wrong length or off the curve", () => {
    const pub = p256PublicKeyFromPrivate(generateP256PrivateKey(), false);
    const offCurve = pub.slice();
    offCurve[64]! ^= 1;
    const badPrefix = pub.slice();
    badPrefix[0] = 0x05;
    const noX = fromHex(`02${"ff".repeat(32)}`); // x ≥ p
    for (const bad of [new Uint8Array(0), pub.subarray(1), pub.subarray(0, 33), offCurve, badPrefix, noX]) {
      expect(() => uncompressP256PublicKey(bad)).toThrow(TypeError);
      expect(() => compressP256PublicKey(bad)).toThrow(TypeError);
    }
  });
});

describe("isP256PublicKey", () => {
  const nobleSays = (pub: Uint8Array) => {
    try {
      p256.Point.fromBytes(pub);
      return true;
    } catch {
      return false;
    }
  };

  it("agrees with noble's point parser on keys, tampered keys and noise", () => {
    for (let i = 0; i < 200; i++) {
      const priv = p256.utils.randomSecretKey();
      const full = p256.getPublicKey(priv, false);
      const compressed = p256.getPublicKey(priv, true);
      expect(isP256PublicKey(full)).toBe(true);
      expect(isP256PublicKey(compressed)).toBe(true);
      const tampered = full.slice();
      tampered[64] = (tampered[64] as number) ^ 1;
      expect(isP256PublicKey(tampered)).toBe(false);
      const noise = crypto.getRandomValues(new Uint8Array(65));
      noise[0] = 4;
      expect(isP256PublicKey(noise)).toBe(nobleSays(noise));
    }
  });

  it("refuses coordinates at or above p, other prefixes and other lengths", () => {
    const full = p256.getPublicKey(p256.utils.randomSecretKey(), false);
    const p = fromHex(
      0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn.toString(16).padStart(64, "0"),
    );
    const xIsP = full.slice();
    xIsP.set(p, 1);
    expect(isP256PublicKey(xIsP)).toBe(false);
    // y + p satisfies the equation mod p but is not a field element: no alias of a valid key.
    const yPlusP = full.slice();
    const y =
      BigInt(`0x${toHex(full.subarray(33))}`) +
      0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
    if (y < 2n ** 256n) {
      yPlusP.set(fromHex(y.toString(16).padStart(64, "0")), 33);
      expect(isP256PublicKey(yPlusP)).toBe(false);
    }
    const wrongPrefix = full.slice();
    wrongPrefix[0] = 6;
    expect(isP256PublicKey(wrongPrefix)).toBe(false);
    expect(isP256PublicKey(full.subarray(0, 64))).toBe(false);
    expect(isP256PublicKey(new Uint8Array(33))).toBe(false);
  });
});
