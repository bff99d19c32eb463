import type { StandIn, StandInClient, StandInUser } from "./common";
import { json } from "./common";
import { startOauth2StandIn } from "./oauth2Server";

/** Discord's test people: a verified email, and an unverified one. */
export const DISCORD_USERS: StandInUser[] = [
  { sub: "80000000000000001", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true },
  { sub: "80000000000000002", name: "Grace Hopper", email: "grace@example.com", emailVerified: false },
];

/**
 * A local Discord OAuth2 server and API: `/oauth2/authorize`, `/api/oauth2/token` and `/api/users/@me`
 * (`id`, `username`, `global_name`, and `email`/`verified` only with the `email` scope).
 */
export async function startDiscordStandIn(opts: {
  clients: StandInClient[];
  users?: StandInUser[];
  port?: number;
  now?: () => number;
}): Promise<StandIn & { endpoints: { authorization: string; token: string; userInfo: string } }> {
  const standIn = await startOauth2StandIn(
    {
      provider: "Discord",
      accent: "#5865F2",
      authorizePath: "/oauth2/authorize",
      tokenPath: "/api/oauth2/token",
      api({ res, url, presented }) {
        if (url.pathname !== "/api/users/@me") return false;
        if (!presented) return json(res, 401, { message: "401: Unauthorized", code: 0 });
        const u = presented.issued.user;
        const withEmail = presented.issued.scopes.includes("email");
        json(res, 200, {
          id: u.sub,
          username: u.name.split(" ")[0]?.toLowerCase(),
          global_name: u.name,
          ...(withEmail ? { email: u.email, verified: u.emailVerified } : {}),
        });
        return true;
      },
    },
    { ...opts, users: opts.users ?? DISCORD_USERS },
  );
  return {
    ...standIn,
    endpoints: {
      authorization: `${standIn.url}/oauth2/authorize`,
      token: `${standIn.url}/api/oauth2/token`,
      userInfo: `${standIn.url}/api/users/@me`,
    },
  };
}
