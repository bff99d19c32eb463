import { signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError, SignerError } from "../errors";
import type { User } from "../session/types";
import { updateSessionUser } from "../signer/completeSession";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `removeEmail` takes. */
export interface RemoveEmailParameters {
  /** A fresh sign-in, when the session is not one (STEP_UP_REQUIRED): e.g. a code mailed to the address. */
  stepUp?: StepUp;
}
/** What `removeEmail` resolves with. */
export type RemoveEmailReturnType = User;
/** The errors `removeEmail` may throw (discriminate on `name` and `code`). */
export type RemoveEmailErrorType =
  | SignerError<"MUST_BE_AUTHENTICATED">
  | SignerApiError<"LAST_AUTH_METHOD" | "STEP_UP_REQUIRED">;

/**
 * Turns off signing in with email for the signed-in user (spec §5: the address is replaced by a
 * placeholder; the service stores none). The last way to sign in cannot be removed (LAST_AUTH_METHOD):
 * add a passkey or a social provider first. The session stays; the old address gets a notice. It needs
 * a fresh sign-in first (STEP_UP_REQUIRED, then `stepUp`).
 *
 * @example
 * await removeEmail(signer);
 */
export async function removeEmail(
  signer: SignerBase,
  { stepUp }: RemoveEmailParameters = {},
): Promise<RemoveEmailReturnType> {
  const user = await requireUser(signer, { error: "MUST_BE_AUTHENTICATED" });
  await withStepUp(signer, stepUp, ({ stamper, verificationToken, multiFactor }) =>
    signer.client.callStamped(signerRoutes.updateEmailAuth, {
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        userEmail: "",
        ...(verificationToken ? { currentEmailVerificationToken: verificationToken } : {}),
        ...(multiFactor ? { multiFactor } : {}),
      },
      stamper,
    }),
  );
  return updateSessionUser(signer, { email: undefined }) ?? user;
}
