import { linkProvider, rememberLinkIntent } from "../authMethods/oauth/linkProvider";
import type { AuthMethods } from "../client/types";
import type { OauthError, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { StepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";
import type { OauthParams } from "../types/oauth";

/**
 * Links a social sign-in to the signed-in user: an ID token that this app's OAuth callback issued
 * (`{providerName, oidcToken}`), one fetched in a pop-up (`{authProviderId, mode: "popup"}`), or one
 * fetched by leaving the page (`{authProviderId, mode: "redirect"}`).
 */
export type AddOauthProviderParams =
  | { providerName: string; oidcToken: string; stepUp?: StepUp }
  | (Omit<OauthParams, "mode" | "redirectUrl" | "fetchIdTokenOnly"> & {
      mode?: "popup";
      signal?: AbortSignal;
      /**
       * A fresh sign-in, when the session is not one (STEP_UP_REQUIRED; `stepUpMethodsOf(error)`). A
       * redirect cannot carry one: link by pop-up, or right after a sign-in.
       */
      stepUp?: StepUp;
    })
  | (Omit<OauthParams, "mode" | "fetchIdTokenOnly"> & {
      /**
       * The page leaves for the provider and comes back (to `redirectUrl`, by default this page); the
       * provider is linked on load and `oauthProviderAdded` fires (or the error is in the state).
       */
      mode: "redirect";
    });
/** What `addOauthProvider` takes. */
export type AddOauthProviderParameters = AddOauthProviderParams;
/** The user's linked providers after the change. */
export type AddOauthProviderReturnType = AuthMethods["oauthProviders"];
/** The errors `addOauthProvider` may throw (discriminate on `name` and `code`). */
export type AddOauthProviderErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | OauthError
  | SignerApiError<"OAUTH_PROVIDER_LINKED" | "OAUTH_INVALID_TOKEN" | "STEP_UP_REQUIRED">;

/**
 * Links a social sign-in to the signed-in user and answers the user's providers. A pop-up must be
 * started in the click handler (as for a pop-up sign-in); redirect mode never settles here — the page
 * leaves, and `init()` links the provider when it comes back for the same user. A linked provider signs
 * in to the account, so the service asks for a fresh sign-in first (STEP_UP_REQUIRED, then `stepUp`).
 *
 * @example
 * // in the click handler
 * const providers = await addOauthProvider(signer, { authProviderId: "google", mode: "popup" });
 */
export function addOauthProvider(
  signer: SignerBase,
  params: AddOauthProviderParameters,
): Promise<AddOauthProviderReturnType> {
  if ("oidcToken" in params)
    return withUser(signer, (user) =>
      linkProvider(signer, user, params.providerName, params.oidcToken, params.stepUp),
    );
  const { authMethods } = signer._internal;
  if (params.mode === "redirect") {
    const { mode: _mode, ...rest } = params;
    return withUser(signer, async (user) => {
      const forget = rememberLinkIntent(signer, user, params.authProviderId);
      try {
        return await authMethods.oauth.redirectForIdToken(signer, rest);
      } catch (error) {
        forget();
        throw error;
      }
    });
  }
  // Not async: the pop-up is claimed inside the caller's click, before anything is awaited.
  const claim = authMethods.oauth.claimPopup(signer);
  const { signal, mode: _mode, stepUp, ...rest } = params;
  return withUser(signer, async (user) => {
    const { idToken, providerName } = await authMethods.oauth.fetchIdToken(signer, rest, claim, signal);
    return linkProvider(signer, user, providerName, idToken, stepUp);
  }).finally(() => {
    if (claim.popup && !claim.popup.closed) claim.popup.close();
  });
}

async function withUser<T>(
  signer: SignerBase,
  run: (user: Awaited<ReturnType<typeof requireUser>>) => Promise<T>,
) {
  return run(await requireUser(signer));
}
