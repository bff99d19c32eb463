import { signerRoutes } from "@latchkey/protocol/wire";
import { type SignerApiError, SignerError } from "../errors";
import type { User } from "../session/types";
import { updateSessionUser } from "../signer/completeSession";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `setEmail` takes. */
export interface SetEmailParameters {
  /** The new email sign-in address; must not be empty (use `removeEmail`). */
  email: string;
  /** From `sendVerificationCode` for this address. */
  otpId: string;
  /** The code mailed to the address. */
  verificationCode: string;
  /**
   * A fresh sign-in of the account as it is, when the session is not one (STEP_UP_REQUIRED): for
   * `{type: "email"}`, a code mailed to the *current* address; the new address's code proves only it.
   */
  stepUp?: StepUp;
}
/** What `setEmail` resolves with. */
export type SetEmailReturnType = User;
/** The errors `setEmail` may throw (discriminate on `name` and `code`). */
export type SetEmailErrorType =
  | SignerError<"EMAIL_EMPTY" | "MUST_BE_AUTHENTICATED">
  | SignerApiError<
      "INVALID_OTP" | "OTP_EXPIRED" | "INVALID_VERIFICATION_TOKEN" | "EMAIL_IN_USE" | "STEP_UP_REQUIRED"
    >;

/**
 * Makes `email` the signed-in user's email sign-in, proven by the code `sendVerificationCode` mailed
 * to it. The session stays; the old address gets a security notice; `user.email` changes at once.
 * Changing the address needs a fresh sign-in first (STEP_UP_REQUIRED after five minutes, or after a
 * social sign-in; then `stepUp`, e.g. a code mailed to the current address).
 * An empty email: 'Email must not be empty. Use removeEmail() to remove email auth.'
 *
 * @example
 * const { otpId } = await sendVerificationCode(signer, { contact: "new@example.com" });
 * const user = await setEmail(signer, { email: "new@example.com", otpId, verificationCode: "123456" });
 */
export async function setEmail(
  signer: SignerBase,
  { email, otpId, verificationCode, stepUp }: SetEmailParameters,
): Promise<SetEmailReturnType> {
  if (!email.trim()) throw new SignerError("EMAIL_EMPTY");
  const user = await requireUser(signer, { error: "MUST_BE_AUTHENTICATED" });
  const { verificationToken } = await signer.client.call(signerRoutes.verifyOtp, {
    otpId,
    otpCode: verificationCode,
  });
  const normalised = email.trim().toLowerCase();
  await withStepUp(signer, stepUp, ({ stamper, verificationToken: current, multiFactor }) =>
    signer.client.callStamped(signerRoutes.updateEmailAuth, {
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        userEmail: normalised,
        verificationToken,
        ...(current ? { currentEmailVerificationToken: current } : {}),
        ...(multiFactor ? { multiFactor } : {}),
      },
      stamper,
    }),
  );
  return updateSessionUser(signer, { email: normalised }) ?? { ...user, email: normalised };
}
