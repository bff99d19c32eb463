import { randomBytes } from "node:crypto";
import { setOauthProviders } from "../apps/appDirectory";
import type { Service } from "../createService";
import { type DevOidcProvider, startDevOidcProvider } from "./oidcProvider";
import { type StandIns, startStandIns } from "./standIns";

/**
 * Dev mode's social sign-in: a local OpenID Connect provider with test users, configured as the dev
 * app's "Google" and "Auth0", and local stand-ins that behave as Apple, Facebook, Twitch, GitHub and
 * Discord do (dev/standIns), so every social button works with no outside account. Runs after `listen`,
 * since the providers must know the service's callback URL.
 */
export async function attachDevIdentityProvider(
  service: Service,
  serviceUrl: string,
  opts: { port?: number } = {},
): Promise<DevOidcProvider & { auth0Issuer: string; standIns: StandIns }> {
  const dev = service.devApp;
  if (!dev) throw new Error("The dev identity provider needs --dev");
  const client = { clientId: "latchkey-dev", clientSecret: randomBytes(16).toString("hex") };
  const clients = [{ ...client, redirectUris: [`${serviceUrl}/oauth/callback`] }];
  // Two issuers, as Google and Auth0 are: an identity linked through one is not linked through the other.
  const idp = await startDevOidcProvider({
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    clients,
  });
  const auth0 = await startDevOidcProvider({
    ...(opts.port !== undefined ? { port: opts.port === 0 ? 0 : opts.port + 1 } : {}),
    clients,
  });
  const standIns = await startStandIns({ callbackUrl: `${serviceUrl}/oauth/callback` });
  // Only the providers change: saving the whole app again would drop what only the config or dev mode
  // gave it and an `App` does not carry (its server keys — `.latchkey/dev-server-key` — and webhooks).
  await setOauthProviders(
    { db: service.ctx.db, now: service.ctx.now(), keyring: service.ctx.keyring },
    dev.app.id,
    [
      { id: "google", issuer: idp.issuer, ...client, allowInsecureHttp: true },
      { id: "auth0", issuer: auth0.issuer, ...client, allowInsecureHttp: true, auth0Connection: "dev" },
      ...standIns.providers,
    ],
  );
  service.ctx.apps.invalidate();
  return {
    issuer: idp.issuer,
    auth0Issuer: auth0.issuer,
    users: idp.users,
    standIns,
    async close() {
      await idp.close();
      await auth0.close();
      await standIns.close();
    },
  };
}
