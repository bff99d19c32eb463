import { p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { describe, expect, it } from "vitest";
import { newP256KeyPair } from "./p256Session";

describe("session key pairs", () => {
  it("answer the compressed public key of their private key (both y parities), fresh every time", () => {
    const parities = new Set<string>();
    const seen = new Set<string>();
    for (let i = 0; i < 64; i++) {
      const { privateKey, publicKeyHex } = newP256KeyPair();
      expect(privateKey.length).toBe(32);
      expect(publicKeyHex).toBe(toHex(p256PublicKeyFromPrivate(privateKey, true)));
      parities.add(publicKeyHex.slice(0, 2));
      seen.add(publicKeyHex);
    }
    expect([...parities].sort()).toEqual(["02", "03"]);
    expect(seen.size).toBe(64);
  });
});
