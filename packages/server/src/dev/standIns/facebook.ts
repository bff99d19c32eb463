import { createHmac, timingSafeEqual } from "node:crypto";
import type { StandIn, StandInClient, StandInUser } from "./common";
import { json } from "./common";
import { startOauth2StandIn } from "./oauth2Server";

/** Facebook's test people: one with a confirmed email, one without any. */
export const FACEBOOK_USERS: StandInUser[] = [
  { sub: "10000001", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true },
  { sub: "10000002", name: "Nomail Person", email: null, emailVerified: false },
];

const V = "/v21.0";

/** A running Facebook stand-in, and the knob that makes its Graph API answer for another app's token. */
export interface FacebookStandIn extends StandIn {
  /** The endpoints an app's config points at (authorization, token, Graph `/me`). */
  endpoints: { authorization: string; token: string; userInfo: string };
  /** From now on, access tokens count as issued to `appId` (another app): undefined restores. */
  answerForApp(appId: string | undefined): void;
}

/**
 * A local Facebook Login + Graph API: the OAuth dialog (`auth_type=reauthenticate` asks for the password
 * again, shown on the page), `/oauth/access_token`, `debug_token` (app token `app_id|app_secret`) and
 * `/me` (`id`, `name`, `email` only when granted and the person has one), which refuses a call without
 * the right `appsecret_proof` (HMAC-SHA256 of the token under the app secret of the token's app).
 */
export async function startFacebookStandIn(opts: {
  clients: StandInClient[];
  users?: StandInUser[];
  port?: number;
  now?: () => number;
}): Promise<FacebookStandIn> {
  let otherApp: string | undefined;
  const appOf = (clientId: string) => otherApp ?? clientId;
  const graphError = (res: Parameters<typeof json>[0], message: string, code = 190) =>
    json(res, 400, { error: { message, type: "OAuthException", code } });
  const standIn = await startOauth2StandIn(
    {
      provider: "Facebook",
      accent: "#1877F2",
      authorizePath: `${V}/dialog/oauth`,
      tokenPath: `${V}/oauth/access_token`,
      note: (q) =>
        q.get("auth_type") === "reauthenticate" ? "Re-enter your Facebook password to continue." : undefined,
      api({ res, url, presented, clients }) {
        if (url.pathname === `${V}/debug_token`) {
          const [appId, secret] = (url.searchParams.get("access_token") ?? "").split("|");
          const app = clients.find((c) => c.clientId === appId && c.clientSecret === secret);
          if (!app) return graphError(res, "Invalid OAuth access token - Cannot parse access token");
          const input = standIn.tokens.get(url.searchParams.get("input_token") ?? "");
          if (!input) return json(res, 200, { data: { is_valid: false } });
          json(res, 200, {
            data: {
              app_id: appOf(input.clientId),
              type: "USER",
              is_valid: true,
              user_id: input.user.sub,
              scopes: input.scopes,
            },
          });
          return true;
        }
        if (url.pathname === `${V}/me`) {
          if (!presented) return graphError(res, "Invalid OAuth access token");
          const app = clients.find((c) => c.clientId === appOf(presented.issued.clientId));
          const proof = Buffer.from(url.searchParams.get("appsecret_proof") ?? "");
          const expected = Buffer.from(
            app ? createHmac("sha256", app.clientSecret).update(presented.token).digest("hex") : "",
          );
          if (!app || proof.length !== expected.length || !timingSafeEqual(proof, expected))
            return graphError(res, "Invalid appsecret_proof provided in the API argument", 100);
          const fields = (url.searchParams.get("fields") ?? "id,name").split(",");
          const u = presented.issued.user;
          json(res, 200, {
            id: u.sub,
            ...(fields.includes("name") ? { name: u.name } : {}),
            ...(fields.includes("email") && u.email && presented.issued.scopes.includes("email")
              ? { email: u.email }
              : {}),
          });
          return true;
        }
        return false;
      },
    },
    { ...opts, users: opts.users ?? FACEBOOK_USERS },
  );
  return {
    ...standIn,
    endpoints: {
      authorization: `${standIn.url}${V}/dialog/oauth`,
      token: `${standIn.url}${V}/oauth/access_token`,
      userInfo: `${standIn.url}${V}/me`,
    },
    answerForApp(appId) {
      otherApp = appId;
    },
  };
}
