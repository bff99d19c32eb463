import { jwtVerify } from "jose";
import * as oidc from "openid-client";
import type { App, StoredOauthProvider } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { issueIdentityToken } from "./identityToken";
import { clientSecretOf, oidcConfiguration, providerRuntime } from "./providerRuntime";
import { ProviderApiError, type ProviderUser } from "./providers/types";

/** Who signed in at the provider, and the ID token the browser gets (the provider's, or the service's). */
export interface ProviderSignIn {
  issuer: string;
  user: ProviderUser;
  idToken: string;
  /**
   * The name the callback itself carried (Apple's first authorisation): kept on the link, since Apple
   * never sends it again. Other providers give the name with every sign-in (in `user`).
   */
  name?: string;
}

/**
 * Turns the provider's answer at the callback (query or POSTed form) into a person, as the provider's
 * description says: OIDC providers by code exchange (PKCE, the client authentication they take) and an ID
 * token checked by signature (JWKS), issuer, audience, expiry and nonce; OAuth 2.0 providers by code
 * exchange and their user API, the service then writing the ID token. Throws on any failure (the
 * callback answers with a page, never a 500).
 */
export async function exchangeCode(
  ctx: Pick<ServiceContext, "keyring" | "now" | "caches" | "serviceKeys" | "random">,
  params: {
    app: App;
    provider: StoredOauthProvider;
    /** The callback's parameters: `code`, `state` and, from Apple, `user`. */
    answer: Record<string, string | undefined>;
    callbackUrl: string;
    verifier: string;
    nonce: string;
  },
): Promise<ProviderSignIn> {
  const { app, provider, answer, callbackUrl, verifier, nonce } = params;
  const rt = await providerRuntime(ctx, { app, provider });
  const d = rt.description;
  const secret = await clientSecretOf(ctx, { app, provider, description: d });
  const called = d.nameFromCallback?.(answer);

  if (d.protocol === "oauth2") {
    if (!answer.code || answer.code.length > 2048) throw new ProviderApiError("no code");
    if (!rt.endpoints || !secret) throw new ProviderApiError("not configured");
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code: answer.code,
      redirect_uri: callbackUrl,
      client_id: provider.clientId,
      client_secret: secret,
      code_verifier: verifier,
    });
    let res: Response;
    try {
      res = await fetch(rt.endpoints.token, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
        body,
        redirect: "error",
      });
    } catch {
      throw new ProviderApiError("could not reach the token endpoint");
    }
    const tokens = (await res.json().catch(() => ({}))) as { access_token?: unknown };
    if (!res.ok || typeof tokens.access_token !== "string" || !tokens.access_token)
      throw new ProviderApiError(`the token endpoint answered ${res.status}`);
    if (!d.fetchUser) throw new ProviderApiError("no user source");
    const user = await d.fetchUser({
      accessToken: tokens.access_token,
      clientId: provider.clientId,
      clientSecret: secret,
      endpoints: rt.endpoints,
    });
    const idToken = await issueIdentityToken(ctx, {
      issuer: provider.issuer,
      audience: provider.clientId,
      user,
      nonce,
    });
    return { issuer: provider.issuer, user, idToken, ...(called ? { name: called } : {}) };
  }

  if (!rt.oidc) throw new ProviderApiError("not discovered");
  const config = oidcConfiguration(rt, provider, secret);
  const current = new URL(callbackUrl);
  for (const [k, v] of Object.entries(answer)) if (v !== undefined) current.searchParams.set(k, v);
  const tokens = await oidc.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: verifier,
    expectedState: answer.state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const idToken = tokens.id_token ?? "";
  // openid-client checks issuer, audience, expiry and nonce; the signature is checked here against JWKS.
  const verified = await jwtVerify(idToken, rt.oidc.jwks, {
    issuer: provider.issuer,
    audience: provider.clientId,
    clockTolerance: 30,
    currentDate: new Date(ctx.now()),
  });
  if (verified.payload.nonce !== nonce) throw new ProviderApiError("the ID token's nonce does not match");
  let claims = verified.payload as Record<string, unknown>;
  // Some providers keep the email in userinfo only.
  if (claims.email === undefined && rt.oidc.server.userinfo_endpoint) {
    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
    claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
  }
  const user = (d.fromClaims ?? (() => undefined))(claims);
  if (!user) throw new ProviderApiError("no claims mapping");
  return { issuer: String(claims.iss), user, idToken, ...(called ? { name: called } : {}) };
}
