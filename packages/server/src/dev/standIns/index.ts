import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { OauthProviderConfig } from "../../features/oauth/config";
import { startAppleStandIn } from "./apple";
import { startDiscordStandIn } from "./discord";
import { type FacebookStandIn, startFacebookStandIn } from "./facebook";
import { startGithubStandIn } from "./github";
import { startTwitchStandIn } from "./twitch";

/** The local stand-ins running, and the provider configs that point an app at them. */
export interface StandIns {
  /** Configs for apple, facebook, twitch, github and discord (ids as named), ready for an app. */
  providers: OauthProviderConfig[];
  /** Base URLs by provider id. */
  urls: Record<"apple" | "facebook" | "twitch" | "github" | "discord", string>;
  facebook: FacebookStandIn;
  close(): Promise<void>;
}

/**
 * Starts a local Apple, Facebook, Twitch, GitHub and Discord on free ports, each behaving as its provider
 * (stand-ins/*.ts), registers `callbackUrl` with each under fresh credentials (Apple: a new P-256 key
 * whose public half the Apple stand-in checks client secrets with), and answers the app configs that use
 * them. `npm start` and the tests start these; production configs name only client ids and secrets.
 *
 * @example
 * const standIns = await startStandIns({ callbackUrl: `${serviceUrl}/oauth/callback` });
 * await upsertApp(ctx, { ...app, oauthProviders: [...standIns.providers] });
 */
export async function startStandIns(opts: {
  callbackUrl: string;
  /** A clock for the stand-ins' expiry checks (Apple's client secret, codes). */
  now?: () => number;
}): Promise<StandIns> {
  const secret = () => randomBytes(16).toString("hex");
  const redirectUris = [opts.callbackUrl];
  const clock = opts.now ? { now: opts.now } : {};
  const apple = { clientId: "dev.latchkey.signin", teamId: "DEVTEAM001", keyId: "DEVKEY0001" };
  const appleKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const fb = { clientId: "100200300", clientSecret: secret() };
  const tw = { clientId: "latchkey-twitch", clientSecret: secret() };
  const gh = { clientId: "Iv1.latchkeydev", clientSecret: secret() };
  const dc = { clientId: "900100200300", clientSecret: secret() };
  const [appleIdp, facebook, twitch, github, discord] = await Promise.all([
    startAppleStandIn({ clients: [{ ...apple, publicKey: appleKey.publicKey, redirectUris }], ...clock }),
    startFacebookStandIn({ clients: [{ ...fb, redirectUris }], ...clock }),
    startTwitchStandIn({ clients: [{ ...tw, redirectUris }] }),
    startGithubStandIn({ clients: [{ ...gh, redirectUris }], ...clock }),
    startDiscordStandIn({ clients: [{ ...dc, redirectUris }], ...clock }),
  ]);
  const local = { allowInsecureHttp: true } as const;
  return {
    providers: [
      {
        id: "apple",
        issuer: appleIdp.issuer,
        clientId: apple.clientId,
        apple: {
          teamId: apple.teamId,
          keyId: apple.keyId,
          privateKey: appleKey.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
        },
        ...local,
      },
      { id: "facebook", issuer: facebook.url, ...fb, endpoints: facebook.endpoints, ...local },
      { id: "twitch", issuer: twitch.issuer, ...tw, ...local },
      { id: "github", issuer: github.url, ...gh, endpoints: github.endpoints, ...local },
      { id: "discord", issuer: discord.url, ...dc, endpoints: discord.endpoints, ...local },
    ],
    urls: {
      apple: appleIdp.url,
      facebook: facebook.url,
      twitch: twitch.issuer,
      github: github.url,
      discord: discord.url,
    },
    facebook,
    async close() {
      await Promise.all([appleIdp, facebook, twitch, github, discord].map((s) => s.close()));
    },
  };
}
