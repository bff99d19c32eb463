import { INVALID_MFA_MESSAGE, INVALID_OTP_MESSAGE } from "@latchkey/protocol/errors";
import { strings } from "../strings";

function parsedMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The client throws the response text; the UI reads its JSON `error` (DESIGN §3.1).
  try {
    const body = JSON.parse(error.message) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {}
  return error.message;
}

/** The text an OTP failure shows (spec §8): the service's 'invalid OTP code' becomes the OTP-invalid text. */
export function otpErrorText(error: unknown): string {
  const message = parsedMessage(error);
  if (message === INVALID_OTP_MESSAGE || message.includes(INVALID_MFA_MESSAGE)) return strings.otpInvalid;
  return message;
}

/** The text a TOTP failure shows (spec §8). */
export function totpErrorText(error: unknown): string {
  return parsedMessage(error).includes(INVALID_MFA_MESSAGE) ? strings.otpInvalid : strings.totpGenericError;
}

export function errorText(error: unknown): string {
  return parsedMessage(error);
}
