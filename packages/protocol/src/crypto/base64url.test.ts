import { randomBytes } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { decodeBase64url, decodeBase64urlLenient, encodeBase64url } from "./base64url";

describe("base64url without padding", () => {
  it("encodes and decodes as RFC 4648 and @scure/base do, for every length", () => {
    expect(encodeBase64url(new TextEncoder().encode("foobar"))).toBe("Zm9vYmFy");
    expect(encodeBase64url(new TextEncoder().encode("fooba"))).toBe("Zm9vYmE");
    expect(encodeBase64url(new Uint8Array([0xfb, 0xff]))).toBe("-_8");
    for (let n = 0; n < 80; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      const text = encodeBase64url(bytes);
      expect(text).toBe(base64urlnopad.encode(bytes));
      expect(decodeBase64url(text)).toEqual(bytes);
    }
  });

  it("refuses every other spelling of the same bytes", () => {
    expect(() => decodeBase64url("Zm9vYmE=")).toThrow(/character/);
    expect(() => decodeBase64url("Zm9vY")).toThrow(/length/);
    expect(() => decodeBase64url("Zm9vYmF")).toThrow(/trailing/); // "Zm9vYmE" with a set low bit
    expect(() => decodeBase64url("Zm9v+mE")).toThrow(/character/);
    expect(() => decodeBase64url("Zm9vYmé")).toThrow(/character/);
  });

  it("reads padded and standard base64 too when lenient (credential ids as CDP and some libraries spell them)", () => {
    for (let n = 0; n < 70; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      expect(decodeBase64urlLenient(Buffer.from(bytes).toString("base64url"))).toEqual(bytes);
      expect(decodeBase64urlLenient(Buffer.from(bytes).toString("base64"))).toEqual(bytes);
    }
    expect(() => decodeBase64urlLenient("Zm9v*mE")).toThrow(/character/);
  });
});
