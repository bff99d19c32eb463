import { defineProvider, standardClaims } from "./types";

/** Google: plain OpenID Connect; the scope's claims are in the ID token. */
export const google = defineProvider({
  id: "google",
  name: "Google",
  protocol: "oidc",
  issuer: "https://accounts.google.com",
  defaultScopes: ["openid", "email", "profile"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: { prompt: "select_account" },
  fromClaims: standardClaims,
});
