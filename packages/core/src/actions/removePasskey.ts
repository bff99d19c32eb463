import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `removePasskey` takes. */
export interface RemovePasskeyParameters {
  /** The passkey's authenticator id (`passkeys[].authenticatorId` of `listAuthMethods`). */
  authenticatorId: string;
  /**
   * A fresh sign-in, when the session is not one (STEP_UP_REQUIRED; `stepUpMethodsOf(error)` says what
   * counts): removing a way in needs one, so a stolen session cannot lock the owner out.
   */
  stepUp?: StepUp;
}
/** What `removePasskey` resolves with. */
export type RemovePasskeyReturnType = undefined;
/** The errors `removePasskey` may throw (discriminate on `name` and `code`). */
export type RemovePasskeyErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SignerApiError<"LAST_AUTH_METHOD" | "AUTHENTICATOR_NOT_FOUND" | "STEP_UP_REQUIRED">;

/**
 * Removes one of the signed-in user's passkeys; the last way to sign in cannot be removed
 * (LAST_AUTH_METHOD). The service asks for a fresh sign-in first (STEP_UP_REQUIRED): call again with
 * `stepUp`.
 *
 * @example
 * await removePasskey(signer, { authenticatorId });
 */
export async function removePasskey(
  signer: SignerBase,
  { authenticatorId, stepUp }: RemovePasskeyParameters,
): Promise<RemovePasskeyReturnType> {
  const user = await requireUser(signer);
  await withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.submit(
      "delete_authenticators",
      {
        type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        organizationId: user.orgId,
        parameters: { userId: user.userId, authenticatorIds: [authenticatorId], ...proof },
      },
      { stamper },
    ),
  );
}
