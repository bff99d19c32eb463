/**
 * What a social provider is, as it really behaves (DESIGN §9): one description per provider, so the flow
 * (features/oauth) has no per-provider branches and adding a provider is one file here plus a line in
 * `index.ts`.
 */

/** The person a provider vouches for, in the service's terms. */
export interface ProviderUser {
  /** The provider's stable id of the person (OIDC `sub`, Facebook/GitHub/Discord `id`). */
  subject: string;
  /** Lower-cased; null when the provider returned none. */
  email: string | null;
  /** Whether the provider vouches for the email (only a verified email is used to find or link users). */
  emailVerified: boolean;
  /** A display name, when the provider gives one. */
  name?: string;
}

/** The three endpoints of an OAuth 2.0 provider without discovery. */
export interface OauthEndpoints {
  authorization: string;
  token: string;
  /** Where the user is read from with the access token (Graph `/me`, GitHub `/user`, Discord `/users/@me`). */
  userInfo: string;
}

/** What `fetchUser` gets: the access token, the app's credentials and the endpoints in use. */
export interface FetchUserArgs {
  accessToken: string;
  clientId: string;
  clientSecret: string;
  endpoints: OauthEndpoints;
}

/** How the service authenticates at the provider's token endpoint. */
export type TokenAuth =
  /** `client_id` and `client_secret` in the form body (Google, Twitch, Facebook, GitHub, Discord). */
  | "client_secret_post"
  /** Apple: the client secret is an ES256 JWT the service mints with the app's Apple key. */
  | "apple_jwt";

export interface ProviderDescription {
  id: string;
  /** The name on the button and in messages. */
  name: string;
  /** "oidc": discovery, an ID token checked against the provider's JWKS; "oauth2": no ID token, the user comes from the provider's API. */
  protocol: "oidc" | "oauth2";
  /** Production: the OIDC issuer, or (OAuth 2.0) the namespace of its user ids. Undefined: configured per app. */
  issuer?: string;
  /** OAuth 2.0 providers' production endpoints (a config's `endpoints` points them elsewhere). */
  endpoints?: OauthEndpoints;
  defaultScopes: string[];
  /** How the provider returns to the callback: a redirect with a query, or a POSTed form (Apple). */
  responseMode: "query" | "form_post";
  tokenAuth: TokenAuth;
  /**
   * Authorization parameters beyond the code flow's own (client_id, redirect_uri, response_type, scope,
   * state, nonce, PKCE): how the provider asks for a re-chosen account, which claims, which response mode.
   */
  authParams: Record<string, string>;
  /** OAuth 2.0: reads the user from the provider's API with the access token. */
  fetchUser?: (args: FetchUserArgs) => Promise<ProviderUser>;
  /** OIDC: the verified ID token's claims (merged with userinfo's when the token lacks the email). */
  fromClaims?: (claims: Record<string, unknown>) => ProviderUser;
  /** A display name the callback itself carries (Apple's `user` form field, first authorisation only). */
  nameFromCallback?: (params: Record<string, string | undefined>) => string | undefined;
}

/**
 * A provider's description, checked for shape by the compiler.
 *
 * @example
 * export const example = defineProvider({ id: "example", name: "Example", protocol: "oidc",
 *   defaultScopes: ["openid", "email"], responseMode: "query", tokenAuth: "client_secret_post",
 *   authParams: { prompt: "select_account" }, fromClaims: standardClaims });
 */
export function defineProvider(d: ProviderDescription): ProviderDescription {
  return d;
}

/** `true` or the string "true" (Apple sends booleans as strings). */
export const truthy = (v: unknown): boolean => v === true || v === "true";

/** The standard OIDC claims: `sub`, `email`, `email_verified`, `name`. */
export function standardClaims(claims: Record<string, unknown>): ProviderUser {
  return {
    subject: String(claims.sub),
    email: typeof claims.email === "string" && claims.email ? claims.email.toLowerCase() : null,
    emailVerified: truthy(claims.email_verified),
    ...(typeof claims.name === "string" && claims.name ? { name: claims.name } : {}),
  };
}

/** Thrown when a provider's API answers badly; the callback turns it into a page, never a 500. */
export class ProviderApiError extends Error {}

/** GET a provider API as JSON; any non-2xx or non-JSON answer is a ProviderApiError. */
export async function getJson(url: URL | string, headers: Record<string, string> = {}): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: "application/json", ...headers }, redirect: "error" });
  } catch {
    throw new ProviderApiError(`could not reach ${new URL(url).host}`);
  }
  const body = await res.json().catch(() => undefined);
  if (!res.ok || body === undefined || body === null || typeof body !== "object")
    throw new ProviderApiError(`${new URL(url).pathname} answered ${res.status}`);
  return body;
}
