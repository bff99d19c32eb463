import { defineProvider, standardClaims } from "./types";

/**
 * Twitch: OpenID Connect whose ID token carries the email only when the `claims` request parameter asks
 * for it (with the `user:read:email` scope); its token endpoint takes the secret in the form body; it has
 * no `prompt`: `force_verify=true` makes it ask again.
 */
export const twitch = defineProvider({
  id: "twitch",
  name: "Twitch",
  protocol: "oidc",
  issuer: "https://id.twitch.tv/oauth2",
  defaultScopes: ["openid", "user:read:email"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: {
    claims: JSON.stringify({
      id_token: { email: null, email_verified: null },
      userinfo: { email: null, email_verified: null, preferred_username: null },
    }),
    force_verify: "true",
  },
  fromClaims(claims) {
    const user = standardClaims(claims);
    const name = typeof claims.preferred_username === "string" ? claims.preferred_username : undefined;
    return { ...user, ...(user.name || !name ? {} : { name }) };
  },
});
