import type { StandIn, StandInClient, StandInUser } from "./common";
import { json } from "./common";
import { startOauth2StandIn } from "./oauth2Server";

/** GitHub's test people: a verified primary email, and an unverified one. */
export const GITHUB_USERS: StandInUser[] = [
  { sub: "5001", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true },
  { sub: "5002", name: "Alan Turing", email: "alan@example.com", emailVerified: false },
];

/**
 * A local GitHub OAuth app server and REST API: `/login/oauth/authorize`, `/login/oauth/access_token`,
 * `/user` (id, login, name) and `/user/emails` (primary, verified; only with the `user:email` scope).
 */
export async function startGithubStandIn(opts: {
  clients: StandInClient[];
  users?: StandInUser[];
  port?: number;
  now?: () => number;
}): Promise<StandIn & { endpoints: { authorization: string; token: string; userInfo: string } }> {
  const standIn = await startOauth2StandIn(
    {
      provider: "GitHub",
      accent: "#24292f",
      authorizePath: "/login/oauth/authorize",
      tokenPath: "/login/oauth/access_token",
      api({ res, url, presented }) {
        if (url.pathname !== "/user" && url.pathname !== "/user/emails") return false;
        if (!presented) return json(res, 401, { message: "Bad credentials" });
        const u = presented.issued.user;
        if (url.pathname === "/user") {
          json(res, 200, {
            id: /^\d+$/.test(u.sub) ? Number(u.sub) : u.sub,
            login: u.name.split(" ")[0]?.toLowerCase(),
            name: u.name,
            email: null,
          });
          return true;
        }
        if (!presented.issued.scopes.includes("user:email")) return json(res, 404, { message: "Not Found" });
        json(
          res,
          200,
          u.email
            ? [{ email: u.email, primary: true, verified: u.emailVerified, visibility: "private" }]
            : [],
        );
        return true;
      },
    },
    { ...opts, users: opts.users ?? GITHUB_USERS },
  );
  return {
    ...standIn,
    endpoints: {
      authorization: `${standIn.url}/login/oauth/authorize`,
      token: `${standIn.url}/login/oauth/access_token`,
      userInfo: `${standIn.url}/user`,
    },
  };
}
