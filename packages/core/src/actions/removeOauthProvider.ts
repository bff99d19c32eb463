import { signerRoutes } from "@latchkey/protocol/wire";
import { type SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import { listAuthMethods } from "./listAuthMethods";

/** What `removeOauthProvider` takes. */
export interface RemoveOauthProviderParameters {
  /** The link's id (`oauthProviders[].providerId` of `listAuthMethods`). */
  providerId: string;
}
/** What `removeOauthProvider` resolves with. */
export type RemoveOauthProviderReturnType = undefined;
/** The errors `removeOauthProvider` may throw (discriminate on `name` and `code`). */
export type RemoveOauthProviderErrorType =
  | SignerError<"MUST_BE_AUTHENTICATED" | "OAUTH_PROVIDERS_NOT_FOUND">
  | SignerApiError<"LAST_AUTH_METHOD">;

/**
 * Unlinks an OAuth provider from the signed-in user; 'OAuth providers not found' when the user has no
 * such link. The last way to sign in cannot be removed (LAST_AUTH_METHOD). Without a user: 'Must be
 * authenticated!' (the catalogue's text for this call).
 *
 * @example
 * await removeOauthProvider(signer, { providerId: oauthProviders[0].providerId });
 */
export async function removeOauthProvider(
  signer: SignerBase,
  { providerId }: RemoveOauthProviderParameters,
): Promise<RemoveOauthProviderReturnType> {
  const user = await requireUser(signer, { error: "MUST_BE_AUTHENTICATED" });
  const { oauthProviders } = await listAuthMethods(signer);
  if (!oauthProviders.some((p) => p.providerId === providerId))
    throw new SignerError("OAUTH_PROVIDERS_NOT_FOUND");
  await signer.client.callStamped(signerRoutes.removeOauthProvider, {
    organizationId: user.orgId,
    parameters: { userId: user.userId, providerIds: [providerId] },
  });
}
