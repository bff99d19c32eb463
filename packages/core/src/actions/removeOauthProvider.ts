import { signerRoutes } from "@latchkey/protocol/wire";
import { type SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";
import { listAuthMethods } from "./listAuthMethods";

/** What `removeOauthProvider` takes. */
export interface RemoveOauthProviderParameters {
  /** The link's id (`oauthProviders[].providerId` of `listAuthMethods`). */
  providerId: string;
  /**
   * A fresh sign-in, when the session is not one (STEP_UP_REQUIRED; `stepUpMethodsOf(error)` says what
   * counts): removing a way in needs one.
   */
  stepUp?: StepUp;
}
/** What `removeOauthProvider` resolves with. */
export type RemoveOauthProviderReturnType = undefined;
/** The errors `removeOauthProvider` may throw (discriminate on `name` and `code`). */
export type RemoveOauthProviderErrorType =
  | SignerError<"MUST_BE_AUTHENTICATED" | "OAUTH_PROVIDERS_NOT_FOUND">
  | SignerApiError<"LAST_AUTH_METHOD" | "STEP_UP_REQUIRED">;

/**
 * Unlinks an OAuth provider from the signed-in user; 'OAuth providers not found' when the user has no
 * such link. The last way to sign in cannot be removed (LAST_AUTH_METHOD), and the service asks for a
 * fresh sign-in first (STEP_UP_REQUIRED: call again with `stepUp`). Without a user: 'Must be
 * authenticated!' (the catalogue's text for this call).
 *
 * @example
 * await removeOauthProvider(signer, { providerId: oauthProviders[0].providerId });
 */
export async function removeOauthProvider(
  signer: SignerBase,
  { providerId, stepUp }: RemoveOauthProviderParameters,
): Promise<RemoveOauthProviderReturnType> {
  const user = await requireUser(signer, { error: "MUST_BE_AUTHENTICATED" });
  const { oauthProviders } = await listAuthMethods(signer);
  if (!oauthProviders.some((p) => p.providerId === providerId))
    throw new SignerError("OAUTH_PROVIDERS_NOT_FOUND");
  await withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.removeOauthProvider, {
      organizationId: user.orgId,
      parameters: { userId: user.userId, providerIds: [providerId], ...proof },
      stamper,
    }),
  );
}
