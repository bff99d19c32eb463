import type { PrepareOauthResponse } from "@latchkey/protocol";
import { encodeBase64url } from "@latchkey/protocol/codecs";
import { OauthError } from "../../errors";
import type { OauthParams } from "../../types/oauth";

/**
 * Default scopes by provider (spec §7: per-provider defaults), for a service that does not say; the
 * service's prepare-oauth answer carries each provider's configured scopes.
 */
export const DEFAULT_OAUTH_SCOPES: Record<string, string> = {
  google: "openid email profile",
  apple: "openid email name",
  facebook: "email public_profile",
  twitch: "openid user:read:email",
  auth0: "openid email profile",
  github: "read:user user:email",
  discord: "identify email",
};

export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function base64UrlJson(value: object): string {
  return encodeBase64url(new TextEncoder().encode(JSON.stringify(value)));
}

/**
 * The provider's authorization URL: PKCE (S256) from the service, `state` naming the prepared request
 * and this browser's target key, the nonce (sha256 of the target key), and `prompt=select_account` or what
 * the service says the provider takes instead (`authParams`).
 */
export function buildOauthUrl(args: {
  prepared: PrepareOauthResponse;
  params: OauthParams;
  targetPublicKey: string;
  nonce: string;
  callbackUrl: string;
  /** Pop-up mode: the opener's origin, which the result is posted to. */
  openerOrigin?: string;
  /** Redirect mode: where to return. */
  redirectUrl?: string;
}): string {
  const { prepared, params } = args;
  const provider = prepared.authProviders.find((p) => p.id === params.authProviderId);
  if (!provider) throw new OauthError("OAUTH_PROVIDER_NOT_FOUND");
  const scope =
    params.scope ??
    provider.scope ??
    DEFAULT_OAUTH_SCOPES[params.authProviderId] ??
    (provider.isCustomProvider ? "openid email profile" : undefined);
  if (!scope) throw new OauthError("OAUTH_UNKNOWN_SCOPE");
  const state = base64UrlJson({
    authProviderId: params.authProviderId,
    requestKey: prepared.requestKey,
    targetPublicKey: args.targetPublicKey,
    mode: params.mode,
    ...(params.expirationSeconds ? { expirationSeconds: params.expirationSeconds } : {}),
    ...(params.mode === "popup" ? { openerOrigin: args.openerOrigin } : { redirectUrl: args.redirectUrl }),
    ...(params.fetchIdTokenOnly ? { fetchIdTokenOnly: true } : {}),
  });
  const url = new URL(provider.authEndpoint);
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", args.callbackUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", scope);
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", args.nonce);
  url.searchParams.set("code_challenge", prepared.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  // What the provider needs beyond the code flow (the service's description of it: Apple's form_post,
  // Facebook's auth_type=reauthenticate, Twitch's claims…); select_account is the OIDC default.
  for (const [k, v] of Object.entries(provider.authParams ?? { prompt: "select_account" }))
    if (!url.searchParams.has(k)) url.searchParams.set(k, v);
  if (params.auth0Connection) url.searchParams.set("connection", params.auth0Connection);
  return url.toString();
}
