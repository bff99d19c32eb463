import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `removePasskey` takes. */
export interface RemovePasskeyParameters {
  /** The passkey's authenticator id (`passkeys[].authenticatorId` of `listAuthMethods`). */
  authenticatorId: string;
}
/** What `removePasskey` resolves with. */
export type RemovePasskeyReturnType = undefined;
/** The errors `removePasskey` may throw (discriminate on `name` and `code`). */
export type RemovePasskeyErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SignerApiError<"LAST_AUTH_METHOD" | "AUTHENTICATOR_NOT_FOUND">;

/**
 * Removes one of the signed-in user's passkeys; the last way to sign in cannot be removed
 * (LAST_AUTH_METHOD).
 *
 * @example
 * await removePasskey(signer, { authenticatorId });
 */
export async function removePasskey(
  signer: SignerBase,
  { authenticatorId }: RemovePasskeyParameters,
): Promise<RemovePasskeyReturnType> {
  const user = await requireUser(signer);
  await signer.client.submit("delete_authenticators", {
    type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
    organizationId: user.orgId,
    parameters: { userId: user.userId, authenticatorIds: [authenticatorId] },
  });
}
