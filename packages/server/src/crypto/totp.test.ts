import { base32nopad } from "@scure/base";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { hotp, matchTotp, otpauthUrl, totpStep } from "./totp";

const SECRET = Buffer.from("12345678901234567890");

describe("TOTP (RFC 6238)", () => {
  // RFC 6238 Appendix B, SHA-1, 8 digits.
  it.each([
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ])("T=%s gives %s", (t, code) => {
    expect(hotp(SECRET, totpStep(t * 1000), 8)).toBe(code);
  });

  it("accepts the current and adjacent steps once each, and nothing further", () => {
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    const current = hotp(SECRET, step);
    expect(matchTotp(SECRET, current, now, 0)).toBe(step);
    expect(matchTotp(SECRET, current, now, step)).toBeNull();
    expect(matchTotp(SECRET, hotp(SECRET, step - 1), now, 0)).toBe(step - 1);
    expect(matchTotp(SECRET, hotp(SECRET, step + 1), now, 0)).toBe(step + 1);
    expect(matchTotp(SECRET, hotp(SECRET, step - 2), now, 0)).toBeNull();
    expect(matchTotp(SECRET, "12345", now, 0)).toBeNull();
  });

  it("agrees with otplib on the otpauth secret", async () => {
    const url = new URL(otpauthUrl({ secret: SECRET, issuer: "Latchkey Dev", account: "ada@example.com" }));
    expect(url.protocol).toBe("otpauth:");
    const secret = url.searchParams.get("secret") as string;
    expect(Buffer.from(base32nopad.decode(secret))).toEqual(SECRET);
    const now = Date.now();
    const code = await generate({ secret, epoch: Math.floor(now / 1000) });
    expect(matchTotp(SECRET, code, now, 0)).toBe(totpStep(now));
  });
});
