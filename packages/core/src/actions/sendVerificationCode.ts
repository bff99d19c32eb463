import { signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError } from "../errors";
import type { SignerBase } from "../signer/types";

/** What `sendVerificationCode` takes. */
export interface SendVerificationCodeParameters {
  /** What to verify; only email is served. */
  type?: "email";
  /** The address the code goes to. */
  contact: string;
}
/** What `sendVerificationCode` resolves with. */
export interface SendVerificationCodeReturnType {
  /** Give it to `setEmail` with the code the user received. */
  otpId: string;
}
/** The errors `sendVerificationCode` may throw (discriminate on `name` and `code`). */
export type SendVerificationCodeErrorType = SignerApiError<"INVALID_REQUEST" | "RATE_LIMITED">;

/**
 * Mails a verification code to an address, the first step of `setEmail`: the address becomes the
 * user's email sign-in only once the code proves it.
 *
 * @example
 * const { otpId } = await sendVerificationCode(signer, { contact: "new@example.com" });
 * await setEmail(signer, { email: "new@example.com", otpId, verificationCode: "123456" });
 */
export async function sendVerificationCode(
  signer: SignerBase,
  { contact }: SendVerificationCodeParameters,
): Promise<SendVerificationCodeReturnType> {
  return signer.client.call(signerRoutes.initOtp, { contact, otpType: "OTP_TYPE_EMAIL" });
}
