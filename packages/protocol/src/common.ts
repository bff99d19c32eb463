import { z } from "zod";
import { MAX_SESSION_EXPIRATION_SECONDS } from "./constants";
import { fromHex } from "./crypto/hex";
import { isP256PublicKey } from "./crypto/p256";
import { ErrorCode } from "./errors";

/**
 * Building blocks of every wire schema. Text that reaches the database goes through `idSchema` or
 * `textSchema`: a control character (NUL above all, which PostgreSQL refuses in text) is a client's
 * mistake, answered 400 `INVALID_CHARACTERS` at the schema boundary, never a 500 further in.
 */

/** The zod issue `params.code` that marks a control character; the server answers it as this error code. */
export const CONTROL_CHARACTER_ISSUE = "INVALID_CHARACTERS";

// C0 controls and DEL: never part of an id, a name or an address. Free text (a message to sign) may
// hold tabs and line breaks, nothing else below 0x20.
function findControl(s: string, allowWhitespace: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x7f) continue;
    if (allowWhitespace && (c === 0x09 || c === 0x0a || c === 0x0d)) continue;
    return true;
  }
  return false;
}

const noControl = {
  message: "must not contain control characters",
  params: { code: CONTROL_CHARACTER_ISSUE },
};

/** True when `s` holds a C0 control character or DEL. */
export function hasControlCharacter(s: string): boolean {
  return findControl(s, false);
}

/** An identifier (otpId, walletId, signWith, …): 1..max characters, no control characters. */
export function idSchema(max = 128) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !findControl(s, false), noControl);
}

/** A single-line name or label: 0..max characters, no control characters. */
export function textSchema(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => !findControl(s, false), noControl);
}

/** Free text that may span lines: tabs and line breaks allowed, other control characters refused. */
export function multilineTextSchema(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => !findControl(s, true), noControl);
}

/** A URL of at most `max` characters, without control characters. */
export function urlSchema(max = 2048) {
  return z
    .string()
    .max(max)
    .refine((s) => !findControl(s, false), noControl)
    .pipe(z.url());
}

export const hexStringSchema = z.string().regex(/^(0x)?[0-9a-fA-F]*$/, "must be hex");

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "must be a valid email address" }))
  .transform((s) => s.toLowerCase());

function isOnP256(hexKey: string): boolean {
  try {
    return isP256PublicKey(fromHex(hexKey));
  } catch {
    return false;
  }
}

/** P-256 public key in hex: 65-byte uncompressed (04…) or 33-byte compressed (02…/03…). */
export const p256PublicKeyHexSchema = z
  .string()
  .regex(/^(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/, "must be a P-256 public key in hex")
  .refine(isOnP256, "is not a point on the P-256 curve")
  .transform((s) => s.toLowerCase());

/** Seconds, as a number or a numeric string (clients send either). */
export const expirationSecondsSchema = z
  .union([z.number(), z.string().regex(/^\d+$/, "must be a whole number of seconds").transform(Number)])
  .pipe(z.number().int().min(60).max(MAX_SESSION_EXPIRATION_SECONDS));

export const orgIdSchema = idSchema(128);

/** Milliseconds since the epoch, as a decimal string (the reference wire format). */
export const timestampMsSchema = z
  .string()
  .regex(/^\d{1,16}$/, "must be milliseconds since the epoch, as a string");

export const otpCodeSchema = z.string().regex(/^\d{6}$/, "must be 6 digits");

const b64urlPattern = /^[A-Za-z0-9_-]+={0,2}$/;
/** base64url; padding tolerated (WebAuthn libraries differ). */
export const base64urlSchema = z.string().regex(b64urlPattern, "must be base64url");
/** base64url without padding: the one encoding of a value, as stamps must be. */
export const base64urlNoPadSchema = z.string().regex(/^[A-Za-z0-9_-]+$/, "must be base64url without padding");

/** A stable error code (`ErrorCode`): the `code` of every error body. */
export const errorCodeSchema = z.enum(ErrorCode);
