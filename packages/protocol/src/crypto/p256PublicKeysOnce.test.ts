import { describe, expect, it } from "vitest";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, p256PublicKeysOnce } from "./p256";

describe("p256PublicKeysOnce", () => {
  it("answers the same keys as p256PublicKeyFromPrivate, in both forms", () => {
    for (let i = 0; i < 20; i++) {
      const key = generateP256PrivateKey();
      const { uncompressed, compressed } = p256PublicKeysOnce(key);
      expect(uncompressed).toEqual(p256PublicKeyFromPrivate(key, false));
      expect(compressed).toEqual(p256PublicKeyFromPrivate(key, true));
    }
  });

  it("refuses what p256PublicKeyFromPrivate refuses: wrong length, 0, not below the order", () => {
    const order = Uint8Array.from(
      Buffer.from("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", "hex"),
    );
    for (const bad of [new Uint8Array(31), new Uint8Array(32), order]) {
      expect(() => p256PublicKeyFromPrivate(bad, true)).toThrow();
      expect(() => p256PublicKeysOnce(bad)).toThrow();
    }
  });
});
