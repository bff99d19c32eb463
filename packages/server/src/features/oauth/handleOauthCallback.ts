import type { ServiceContext } from "../../context";
import { exchangeCode, type ProviderSignIn } from "../../oauthProviders/exchangeCode";
import { answer, answerError, answerSignedIn, type CallbackAnswer, invalidPage } from "./callbackAnswer";
import { consumeOauthRequest, recordIdToken } from "./consumeOauthRequest";
import { readCallbackState } from "./readCallbackState";
import { resolveOauthUser } from "./resolveOauthUser";

/**
 * The provider's redirect back to the service, as a query (a redirect) or a POSTed form (Apple's
 * `form_post`); the same rules hold for both. Each step below is numbered and a callback that fails one
 * goes no further:
 *  1. the state parses (readCallbackState.ts) and names an unexpired, unused request of a known app whose
 *     answer goes only to an allowed place; it is consumed once (consumeOauthRequest.ts);
 *  2. the code is exchanged with the PKCE verifier and the person read as the provider's description says
 *     (exchangeCode.ts: an ID token validated by signature, issuer, audience, expiry and nonce, or an
 *     OAuth 2.0 provider's user API); a request that only fetches the ID token is answered here;
 *  3. the user is found, prompted for linking, or created (resolveOauthUser.ts), and a linked or new user
 *     gets a session sealed to the browser's key.
 */
export async function handleOauthCallback(
  ctx: ServiceContext,
  params: { query: Record<string, string | undefined>; callbackUrl: string; ip: string },
): Promise<CallbackAnswer> {
  const { query, callbackUrl, ip } = params;
  // 1.
  const state = readCallbackState(query.state);
  if (!state) return invalidPage("This sign-in link is invalid. Close this window and try again.");
  const consumed = await consumeOauthRequest(ctx, { state, query });
  if ("invalid" in consumed) return invalidPage(consumed.invalid);
  if ("error" in consumed) return answerError(state, consumed.error);
  const { request, app, provider } = consumed;
  // 2.
  let signIn: ProviderSignIn;
  try {
    const sealed = await ctx.keyring.open(request.sealed_verifier, `oauth_request:${request.request_key}`);
    const exchange = { app, provider, answer: query, callbackUrl, nonce: request.nonce };
    signIn = await exchangeCode(ctx, { ...exchange, verifier: sealed.toString("utf8") });
  } catch (e) {
    const details = { provider: provider.id, reason: (e as Error).message };
    ctx.audit("oauth.failed", { appId: app.id, ip, details }).catch(() => {});
    return answerError(state, `Couldn't complete sign-in with ${provider.displayName}`);
  }
  await recordIdToken(ctx, { requestKey: request.request_key, state, signIn });
  const { idToken } = signIn;
  if (state.fetchIdTokenOnly)
    return answer(state, { status: "FETCHED_ID_TOKEN_ONLY", idToken, authProvider: provider.id });
  // 3.
  const resolved = await resolveOauthUser(ctx, { app, provider, signIn, requestKey: request.request_key });
  if ("promptLinking" in resolved) {
    const status = "ACCOUNT_LINKING_CONFIRMATION_REQUIRED";
    return answer(state, { status, ...resolved.promptLinking, idToken, authProvider: provider.id });
  }
  const isSignup = "newUser" in resolved;
  const user = "newUser" in resolved ? resolved.newUser : resolved.linked;
  return answerSignedIn(ctx, { state, app, provider, user, idToken, isSignup, ip });
}
