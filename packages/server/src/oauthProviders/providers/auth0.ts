import { defineProvider, standardClaims } from "./types";

/** Auth0, or any OpenID Connect issuer an app names (`isCustomProvider`): the issuer comes from config. */
export const auth0 = defineProvider({
  id: "auth0",
  name: "Auth0",
  protocol: "oidc",
  defaultScopes: ["openid", "email", "profile"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: { prompt: "select_account" },
  fromClaims: standardClaims,
});

/** A custom OpenID Connect provider: Auth0's behaviour under the app's own id and name. */
export function customOidc(id: string, name: string) {
  return defineProvider({ ...auth0, id, name });
}
