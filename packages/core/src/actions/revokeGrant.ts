import type { Grant } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `revokeGrant` takes. */
export interface RevokeGrantParameters {
  grantId: string;
}
/** The grant as it now is (status "revoked"). */
export type RevokeGrantReturnType = Grant;
/** The errors `revokeGrant` may throw (discriminate on `name` and `code`). */
export type RevokeGrantErrorType = SignerError<"NOT_AUTHENTICATED"> | SignerApiError<"GRANT_NOT_FOUND">;

/**
 * Revokes a permission the signed-in user granted the app's backend: from this moment nothing more is
 * signed under it, on any instance of the service (the backend gets GRANT_REVOKED).
 *
 * @example
 * await revokeGrant(signer, { grantId });
 */
export async function revokeGrant(
  signer: SignerBase,
  { grantId }: RevokeGrantParameters,
): Promise<RevokeGrantReturnType> {
  const user = await requireUser(signer);
  const { grant } = await signer.client.callStamped(signerRoutes.revokeGrant, {
    organizationId: user.orgId,
    parameters: { grantId },
  });
  return grant;
}
