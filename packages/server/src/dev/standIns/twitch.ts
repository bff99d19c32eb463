import { type DevOidcProvider, type DevOidcUser, startDevOidcProvider } from "../oidcProvider";
import type { StandInClient } from "./common";

/** Twitch's test people. */
export const TWITCH_USERS: DevOidcUser[] = [
  { sub: "41000001", email: "ada@example.com", name: "Ada Lovelace", emailVerified: true },
  { sub: "41000002", email: "grace@example.com", name: "Grace Hopper", emailVerified: false },
];

/**
 * A local Twitch: an OpenID Connect provider that puts the email in the ID token only when the `claims`
 * parameter asks for it (with the `user:read:email` scope), takes the client secret only in the token
 * request's body (client_secret_post), and treats `force_verify=true` as a fresh login.
 */
export function startTwitchStandIn(opts: {
  clients: StandInClient[];
  users?: DevOidcUser[];
  port?: number;
}): Promise<DevOidcProvider> {
  return startDevOidcProvider({
    clients: opts.clients,
    users: opts.users ?? TWITCH_USERS,
    like: "twitch",
    ...(opts.port !== undefined ? { port: opts.port } : {}),
  });
}
