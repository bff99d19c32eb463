import type { Grant, GrantPermissionsInput } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

export type { Grant, GrantPermissions, GrantPermissionsInput, GrantStatus } from "@latchkey/protocol";

/** What `createGrant` takes: what the app's backend may sign for the user, and until when. */
export type CreateGrantParameters = GrantPermissionsInput;
/** The grant made: its id is what the app's backend signs under. */
export type CreateGrantReturnType = Grant;
/** The errors `createGrant` may throw (discriminate on `name` and `code`). */
export type CreateGrantErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SignerApiError<"INVALID_REQUEST" | "RATE_LIMITED">;

/**
 * Grants the app's backend a permission to sign for the signed-in user within limits: the chains, the
 * contracts and functions it may call, the native coin it may move per transaction and per day, how many
 * signatures it may make, and until when. The backend (`@latchkey/backend`) then signs and sends under
 * the grant's id; each signature shows in the user's security activity. Show the user what they grant
 * first (the modal's consent step does).
 *
 * @example
 * const grant = await createGrant(signer, {
 *   chainIds: [8453],
 *   contracts: [token],
 *   selectors: ["0xa9059cbb"],
 *   maxOperations: 10,
 *   expiresAt: Date.now() + 7 * 24 * 3600_000,
 * });
 */
export async function createGrant(
  signer: SignerBase,
  permissions: CreateGrantParameters,
): Promise<CreateGrantReturnType> {
  const user = await requireUser(signer);
  const { grant } = await signer.client.callStamped(signerRoutes.createGrant, {
    organizationId: user.orgId,
    parameters: { permissions },
  });
  return grant;
}
