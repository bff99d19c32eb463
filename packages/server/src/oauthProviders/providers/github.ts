import { defineProvider, getJson, ProviderApiError } from "./types";

/**
 * GitHub (an OAuth app): OAuth 2.0, the person from the REST API (`/user`, and `/user/emails` for the
 * primary address and whether it is verified).
 */
export const github = defineProvider({
  id: "github",
  name: "GitHub",
  protocol: "oauth2",
  issuer: "https://github.com",
  endpoints: {
    authorization: "https://github.com/login/oauth/authorize",
    token: "https://github.com/login/oauth/access_token",
    userInfo: "https://api.github.com/user",
  },
  defaultScopes: ["read:user", "user:email"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: { prompt: "select_account" },
  async fetchUser({ accessToken, endpoints }) {
    const headers = { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json" };
    const user = (await getJson(endpoints.userInfo, headers)) as {
      id?: unknown;
      login?: unknown;
      name?: unknown;
    };
    if (typeof user.id !== "number" && typeof user.id !== "string") throw new ProviderApiError("no user id");
    const emails = (await getJson(`${endpoints.userInfo}/emails`, headers)) as {
      email?: unknown;
      primary?: unknown;
      verified?: unknown;
    }[];
    const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true) : undefined;
    const email = typeof primary?.email === "string" ? primary.email.toLowerCase() : null;
    const name = typeof user.name === "string" && user.name ? user.name : user.login;
    return {
      subject: String(user.id),
      email,
      emailVerified: email !== null && primary?.verified === true,
      ...(typeof name === "string" && name ? { name } : {}),
    };
  },
});
