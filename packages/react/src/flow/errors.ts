import type { CoreErrorCode } from "@latchkey/core";
import { strings } from "../strings";

// Classified by the stable `code` that core's errors (and the signer state's error) carry, never by text.
const INVALID_OTP: CoreErrorCode = "INVALID_OTP";
const INVALID_MFA_CODE: CoreErrorCode = "INVALID_MFA_CODE";

function codeOf(error: unknown): CoreErrorCode | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  return (error as { code?: CoreErrorCode }).code;
}

/** The text an error shows as it is: its message (a service error's message is the service's own). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The text an OTP failure shows (spec §8): a wrong code is the OTP-invalid text, the rest as they are. */
export function otpErrorText(error: unknown): string {
  const code = codeOf(error);
  return code === INVALID_OTP || code === INVALID_MFA_CODE ? strings.otpInvalid : errorText(error);
}

/** The text a TOTP failure shows (spec §8): a wrong code, else the generic TOTP failure. */
export function totpErrorText(error: unknown): string {
  return codeOf(error) === INVALID_MFA_CODE ? strings.otpInvalid : strings.totpGenericError;
}
