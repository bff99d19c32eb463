import { signerRoutes } from "@latchkey/protocol/wire";
import type { AuthMethods } from "../client/types";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `listAuthMethods` resolves with. */
export type ListAuthMethodsReturnType = AuthMethods;
/** The errors `listAuthMethods` may throw (discriminate on `name` and `code`). */
export type ListAuthMethodsErrorType = SignerError<"NOT_AUTHENTICATED"> | SignerApiError;

/**
 * The signed-in user's ways to sign in: email, OAuth providers, passkeys and MFA factors.
 *
 * @example
 * const { email, oauthProviders, passkeys } = await listAuthMethods(signer);
 */
export async function listAuthMethods(signer: SignerBase): Promise<ListAuthMethodsReturnType> {
  const user = await requireUser(signer);
  return signer.client.callStamped(signerRoutes.listAuthMethods, {
    organizationId: user.orgId,
    outer: { suborgId: user.orgId },
  });
}
