import { createHmac } from "node:crypto";
import { defineProvider, getJson, ProviderApiError } from "./types";

const GRAPH = "https://graph.facebook.com/v21.0";

/**
 * Facebook Login for the web: OAuth 2.0 with no ID token. The person is read from the Graph API (`/me`,
 * `id` and `email`) with an `appsecret_proof` (HMAC-SHA256 of the access token under the app secret), after
 * `debug_token` confirms the token was issued to this app for that person. An email is there only when the
 * person has a confirmed one and granted it. Re-authentication is `auth_type=reauthenticate` (Facebook has
 * no `prompt`).
 */
export const facebook = defineProvider({
  id: "facebook",
  name: "Facebook",
  protocol: "oauth2",
  issuer: "https://www.facebook.com",
  endpoints: {
    authorization: "https://www.facebook.com/v21.0/dialog/oauth",
    token: `${GRAPH}/oauth/access_token`,
    userInfo: `${GRAPH}/me`,
  },
  defaultScopes: ["email", "public_profile"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: { auth_type: "reauthenticate" },
  async fetchUser({ accessToken, clientId, clientSecret, endpoints }) {
    const debug = new URL("debug_token", endpoints.userInfo);
    debug.searchParams.set("input_token", accessToken);
    debug.searchParams.set("access_token", `${clientId}|${clientSecret}`);
    const { data } = (await getJson(debug)) as {
      data?: { app_id?: unknown; is_valid?: unknown; user_id?: unknown };
    };
    if (data?.is_valid !== true || String(data.app_id) !== clientId)
      throw new ProviderApiError("the access token was not issued to this app");
    const me = new URL(endpoints.userInfo);
    me.searchParams.set("fields", "id,name,email");
    me.searchParams.set("access_token", accessToken);
    me.searchParams.set(
      "appsecret_proof",
      createHmac("sha256", clientSecret).update(accessToken).digest("hex"),
    );
    const user = (await getJson(me)) as { id?: unknown; name?: unknown; email?: unknown };
    if (typeof user.id !== "string" || !user.id || user.id !== String(data.user_id))
      throw new ProviderApiError("the Graph API named another person");
    const email = typeof user.email === "string" && user.email ? user.email.toLowerCase() : null;
    return {
      subject: user.id,
      email,
      // Facebook returns only a confirmed address, and none when the person has none or withheld it.
      emailVerified: email !== null,
      ...(typeof user.name === "string" && user.name ? { name: user.name } : {}),
    };
  },
});
