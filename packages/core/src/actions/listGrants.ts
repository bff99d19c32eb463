import type { Grant } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `listGrants` resolves with: the user's grants, newest first, each with its status and use. */
export type ListGrantsReturnType = Grant[];
/** The errors `listGrants` may throw (discriminate on `name` and `code`). */
export type ListGrantsErrorType = SignerError<"NOT_AUTHENTICATED"> | SignerApiError;

/**
 * The permissions the signed-in user granted the app's backend, newest first: active, revoked or
 * expired, with what each allows and how much of it was used (operations, today's value).
 *
 * @example
 * const active = (await listGrants(signer)).filter((g) => g.status === "active");
 */
export async function listGrants(signer: SignerBase): Promise<ListGrantsReturnType> {
  const user = await requireUser(signer);
  const { grants } = await signer.client.callStamped(signerRoutes.listGrants, { organizationId: user.orgId });
  return grants;
}
