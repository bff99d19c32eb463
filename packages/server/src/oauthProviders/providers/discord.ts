import { defineProvider, getJson, ProviderApiError } from "./types";

/** Discord: OAuth 2.0, the person from `/users/@me` (`id`, `email`, `verified`). */
export const discord = defineProvider({
  id: "discord",
  name: "Discord",
  protocol: "oauth2",
  issuer: "https://discord.com",
  endpoints: {
    authorization: "https://discord.com/oauth2/authorize",
    token: "https://discord.com/api/oauth2/token",
    userInfo: "https://discord.com/api/users/@me",
  },
  defaultScopes: ["identify", "email"],
  responseMode: "query",
  tokenAuth: "client_secret_post",
  authParams: { prompt: "consent" },
  async fetchUser({ accessToken, endpoints }) {
    const user = (await getJson(endpoints.userInfo, { authorization: `Bearer ${accessToken}` })) as {
      id?: unknown;
      username?: unknown;
      global_name?: unknown;
      email?: unknown;
      verified?: unknown;
    };
    if (typeof user.id !== "string" || !user.id) throw new ProviderApiError("no user id");
    const email = typeof user.email === "string" && user.email ? user.email.toLowerCase() : null;
    const name = typeof user.global_name === "string" && user.global_name ? user.global_name : user.username;
    return {
      subject: user.id,
      email,
      emailVerified: email !== null && user.verified === true,
      ...(typeof name === "string" && name ? { name } : {}),
    };
  },
});
