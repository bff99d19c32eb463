import { randomBytes } from "node:crypto";
import { base58 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { base58Decode } from "./base58";

describe("base58 decoding", () => {
  it("gives what @scure/base gives, leading zero bytes ('1's) included, for every length", () => {
    expect(base58Decode("")).toEqual(new Uint8Array(0));
    expect(base58Decode("111")).toEqual(new Uint8Array(3));
    expect(base58Decode("StV1DL6CwTryKyV")).toEqual(new TextEncoder().encode("hello world"));
    for (let n = 0; n < 120; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      if (n % 3 === 0) bytes.fill(0, 0, Math.min(n, 2)); // leading zeros
      if (n % 7 === 0) bytes.fill(0xff);
      expect(base58Decode(base58.encode(bytes))).toEqual(bytes);
    }
  });

  it("refuses characters outside the alphabet (0, O, I, l, non-ASCII)", () => {
    for (const bad of ["0", "O", "I", "l", "é", "2 3", "+"])
      expect(base58Decode(`abc${bad}`)).toBeUndefined();
  });
});
