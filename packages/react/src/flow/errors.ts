import type { CoreErrorCode } from "@latchkey/core";
import type { Texts } from "../texts/types";

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
