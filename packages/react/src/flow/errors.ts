import type { CoreErrorCode } from "@latchkey/core";
import type { Texts } from "../texts/types";
import type { AuthFailure } from "./step";

// Classified by the stable `code` that core's errors (and the signer state's error) carry, never by text.
const INVALID_OTP: CoreErrorCode = "INVALID_OTP";
const INVALID_MFA_CODE: CoreErrorCode = "INVALID_MFA_CODE";

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/**
 * The text an error shows: the locale's text for its code, else its message (a service error's message
 * is the service's own; English has no code texts, so it always shows the message).
 */
export function errorText(error: unknown, texts: Texts): string {
  const code = codeOf(error);
  const text = code ? texts.errors[code] : undefined;
  if (text !== undefined) return text;
  return error instanceof Error ? error.message : String(error);
}

/** The text an OTP failure shows (spec §8): a wrong code is the OTP-invalid text, the rest as they are. */
export function otpErrorText(error: unknown, texts: Texts): string {
  const code = codeOf(error);
  return code === INVALID_OTP || code === INVALID_MFA_CODE ? texts.otpInvalid : errorText(error, texts);
}

/** The text a TOTP failure shows (spec §8): a wrong code, else the generic TOTP failure. */
export function totpErrorText(error: unknown, texts: Texts): string {
  return codeOf(error) === INVALID_MFA_CODE ? texts.otpInvalid : texts.totpGenericError;
}

// Refusals that are the service's or the app's rules, not the user's input: 'Permission denied' (spec §8).
const PERMISSION_CODES = new Set<string>(["FORBIDDEN", "RATE_LIMITED", "MFA_LOCKED", "ORIGIN_NOT_ALLOWED"]);
// Answers of a proxy or load balancer whose service is down or away.
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/**
 * Which error view an email step's failure shows (spec §8), or undefined for an error shown inline (a
 * wrong code). 'Connection failed': the request never reached the service (the browser's fetch failed) or
 * a proxy answered that it is down. 'Connection timed out': the code outlived its ten minutes.
 * 'Permission denied': the service refused for now (rate limits, a blocked origin, a locked factor).
 */
export function failureOf(error: unknown): AuthFailure | undefined {
  // A fetch that never got an answer rejects with a TypeError (offline, refused, DNS, CORS).
  if (error instanceof TypeError) return "connection";
  const code = codeOf(error);
  if (code === "OTP_EXPIRED") return "timeout";
  if (code && PERMISSION_CODES.has(code)) return "permission";
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && UNREACHABLE_STATUSES.has(status)) return "connection";
  return undefined;
}
