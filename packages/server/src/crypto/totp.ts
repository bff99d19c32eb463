import { createHmac, randomBytes } from "node:crypto";
import { base32nopad } from "@scure/base";

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now that still count (RFC 6238 §5.2 allows for clock drift). */
export const TOTP_WINDOW = 1;

/** A 160-bit secret (RFC 4226 recommends at least 128; 160 matches SHA-1's output). */
export function newTotpSecret(): Buffer {
  return randomBytes(20);
}

/** HOTP (RFC 4226 §5.3): dynamic truncation of HMAC-SHA-1 over the 8-byte counter. */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac("sha1", secret).update(msg).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  const bin = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(bin).padStart(digits, "0");
}

export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);
}

/**
 * Finds the step a code belongs to within ±1 step of now, skipping steps at or before `lastStep` so a
 * code is accepted once. Returns the matched step, or null.
 */
export function matchTotp(secret: Uint8Array, code: string, nowMs: number, lastStep: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(nowMs);
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if (step <= lastStep) continue;
    if (hotp(secret, step) === code) return step;
  }
  return null;
}

export function otpauthUrl(opts: { secret: Uint8Array; issuer: string; account: string }): string {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.account)}`;
  const params = new URLSearchParams({
    secret: base32nopad.encode(opts.secret),
    issuer: opts.issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
