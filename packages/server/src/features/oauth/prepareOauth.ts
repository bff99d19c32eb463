import type { PrepareOauthResponse } from "@latchkey/protocol";
import * as oidc from "openid-client";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { providerRuntime } from "../../oauthProviders/providerRuntime";

/** How long a prepared sign-in (PKCE verifier, nonce) may be completed. */
export const OAUTH_REQUEST_TTL_MS = 10 * 60 * 1000;

/**
 * Starts a social sign-in: a PKCE verifier (kept sealed, server side) and a request key that the
 * client's `state` must name; the nonce binds the ID token to the browser's target key. Each provider
 * comes with its endpoint, scopes and the authorization parameters its description asks for.
 */
export async function prepareOauth(
  ctx: ServiceContext,
  params: { app: App; nonce: string },
): Promise<PrepareOauthResponse> {
  const { app, nonce } = params;
  const verifier = oidc.randomPKCECodeVerifier();
  const requestKey = ctx.random.bytes(24).toString("base64url");
  const now = ctx.now();
  await ctx.db
    .insertInto("oauth_requests")
    .values({
      request_key: requestKey,
      app_id: app.id,
      nonce,
      sealed_verifier: ctx.keyring.seal(new TextEncoder().encode(verifier), `oauth_request:${requestKey}`),
      expires_at: now + OAUTH_REQUEST_TTL_MS,
      used_at: null,
      id_token_hash: null,
      linked_at: null,
      created_at: now,
    })
    .execute();
  const authProviders = await Promise.all(
    app.oauthProviders.map(async (p) => {
      const rt = await providerRuntime(ctx, { app, provider: p });
      return {
        id: p.id,
        ...(p.isCustomProvider ? { isCustomProvider: true } : {}),
        clientId: p.clientId,
        authEndpoint: rt.authorizationEndpoint,
        scope: p.scopes.join(" "),
        authParams: rt.description.authParams,
      };
    }),
  );
  return { codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), requestKey, authProviders };
}
