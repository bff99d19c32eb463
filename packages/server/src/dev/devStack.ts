import { randomBytes } from "node:crypto";
import { upsertApp } from "../apps/appDirectory";
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
  const { app } = dev;
  await upsertApp(
    { db: service.ctx.db, now: service.ctx.now(), keyring: service.ctx.keyring },
    {
      id: app.id,
      name: app.name,
      allowedOrigins: app.allowedOrigins,
      emailMode: app.emailMode,
      magicLinkRedirectUrls: app.magicLinkRedirectUrls,
      oauthRedirectUrls: app.oauthRedirectUrls,
      // What the dev app already has stays: its sponsorship policies (EVM and Solana), signing policy,
      // mail language, JWT.
      sponsorship: app.sponsorship,
      ...(app.signingPolicy ? { signingPolicy: app.signingPolicy } : {}),
      locale: app.locale,
      ...(app.jwt ? { jwt: app.jwt } : {}),
      oauthProviders: [
        { id: "google", issuer: idp.issuer, ...client, allowInsecureHttp: true },
        { id: "auth0", issuer: auth0.issuer, ...client, allowInsecureHttp: true, auth0Connection: "dev" },
        ...standIns.providers,
      ],
    },
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
