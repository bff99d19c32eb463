import { isOriginAllowed, oauthProviderErrorCode, urlAllowedBy } from "@latchkey/protocol";
import type { App, StoredOauthProvider } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import type { OauthRequestsTable } from "../../db/schema";
import type { ProviderSignIn } from "../../oauthProviders/exchangeCode";
import { sha256hex } from "../../oauthProviders/verifyProviderToken";
import type { OauthState } from "./callbackAnswer";

/**
 * What a callback's state may act on: its stored request, the app and the provider; or why not, as a
 * service page (`invalid`: where to answer is not settled) or as an error told to the app (`error`).
 */
export type ConsumedOauthRequest =
  | { request: OauthRequestsTable; app: App; provider: StoredOauthProvider }
  | { invalid: string }
  | { error: string };

function redirectAllowed(app: App, url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.hash) return false;
  return app.oauthRedirectUrls.some((allowed) => urlAllowedBy(allowed, u));
}

/**
 * Takes the stored request a callback's state names, once; each step below is numbered and a callback
 * that fails one goes no further:
 *  1. the request exists and has not expired;
 *  2. its app is still known;
 *  3. the answer may go where the state says: an allow-listed redirect URL (no fragment), or an allowed
 *     opener origin for a pop-up. Settled before anything else is trusted; until then failures are the
 *     service's own page;
 *  4. the request is marked used atomically, so a replayed state is refused;
 *  5. the browser's target key hashes to the request's nonce (the ID token will have to carry it);
 *  6. the provider did not refuse: a user's cancel is the spec's "OAuth cancelled", which the client
 *     treats as a cancel; any other error is passed on as its code only, one of a fixed set (else
 *     `provider_error`): the provider's free text could put anyone's words (or markup) on the app's page;
 *  7. the provider is one the app has.
 */
export async function consumeOauthRequest(
  ctx: Pick<ServiceContext, "db" | "now" | "apps">,
  params: { state: OauthState; query: Record<string, string | undefined> },
): Promise<ConsumedOauthRequest> {
  const { state, query } = params;
  const now = ctx.now();
  // 1.
  const request = await ctx.db
    .selectFrom("oauth_requests")
    .selectAll()
    .where("request_key", "=", state.requestKey)
    .executeTakeFirst();
  if (!request || request.expires_at <= now)
    return { invalid: "This sign-in has expired. Close this window and try again." };
  // 2.
  const app = await ctx.apps.byId(request.app_id);
  if (!app) return { invalid: "This sign-in is no longer valid." };
  // 3.
  if (state.mode === "redirect" && !(state.redirectUrl && redirectAllowed(app, state.redirectUrl)))
    return { invalid: "This sign-in asked to return to an address the app does not allow." };
  if (
    state.mode === "popup" &&
    !(state.openerOrigin && isOriginAllowed(app.allowedOrigins, new URL(state.openerOrigin).origin))
  )
    return { invalid: "This sign-in was started from a page the app does not allow." };
  // 4.
  const consumed = await ctx.db
    .updateTable("oauth_requests")
    .set({ used_at: now })
    .where("request_key", "=", request.request_key)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1)
    return { invalid: "This sign-in was already used. Close this window and try again." };
  // 5.
  if (sha256hex(state.targetPublicKey) !== request.nonce)
    return { error: "The sign-in request does not match this browser" };
  // 6.
  if (query.error === "access_denied" || query.error === "user_cancelled_authorize")
    return { error: "OAuth cancelled" };
  if (query.error) return { error: oauthProviderErrorCode(query.error) };
  // 7.
  const provider = app.oauthProviders.find((p) => p.id === state.authProviderId);
  if (!provider) return { error: `No OAuth provider ${state.authProviderId} for this app` };
  return { request, app, provider };
}

/**
 * Records on the request the ID token the provider's answer gave (only such a token may later be linked
 * to an account), whether it was only fetched, and the name the callback carried.
 */
export async function recordIdToken(
  ctx: Pick<ServiceContext, "db">,
  params: { requestKey: string; state: OauthState; signIn: ProviderSignIn },
): Promise<void> {
  const { requestKey, state, signIn } = params;
  await ctx.db
    .updateTable("oauth_requests")
    .set({
      id_token_hash: sha256hex(signIn.idToken),
      fetch_only: state.fetchIdTokenOnly ? 1 : 0,
      display_name: signIn.name ?? null,
    })
    .where("request_key", "=", requestKey)
    .execute();
}
