import { defineProvider, standardClaims, truthy } from "./types";

/**
 * Sign in with Apple for the web: OpenID Connect, but Apple posts the result to the callback as a form
 * (`response_mode=form_post`, required once any scope is asked), its client secret is an ES256 JWT the
 * service mints with the app's Apple key (appleClientSecret.ts), `email_verified` and `is_private_email`
 * are strings, and the person's name arrives only once, in the first authorisation's `user` form field.
 * A private-relay address (…@privaterelay.appleid.com) is an address Apple verified and forwards.
 */
export const apple = defineProvider({
  id: "apple",
  name: "Apple",
  protocol: "oidc",
  issuer: "https://appleid.apple.com",
  defaultScopes: ["openid", "email", "name"],
  responseMode: "form_post",
  tokenAuth: "apple_jwt",
  authParams: { response_mode: "form_post" },
  fromClaims(claims) {
    const user = standardClaims(claims);
    return { ...user, emailVerified: truthy(claims.email_verified) || truthy(claims.is_private_email) };
  },
  nameFromCallback(params) {
    if (!params.user || params.user.length > 4096) return undefined;
    try {
      const parsed = JSON.parse(params.user) as { name?: { firstName?: unknown; lastName?: unknown } };
      const parts = [parsed.name?.firstName, parsed.name?.lastName]
        .map((p) => (typeof p === "string" ? p.replace(/\p{Cc}/gu, "").trim() : ""))
        .filter((p) => p !== "");
      return parts.length ? parts.join(" ").slice(0, 200) : undefined;
    } catch {
      return undefined;
    }
  },
});
