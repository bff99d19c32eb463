import { readFileSync } from "node:fs";
import { isLoopbackAnyPort } from "@latchkey/protocol";
import { z } from "zod";
import { serverKeysSchema } from "./features/grants/config";
import { oauthProviderConfigSchema } from "./features/oauth/config";
import { sponsorshipConfigSchema } from "./features/sponsorship/config";
import { chainsSchema } from "./features/sponsorship/evm/config";
import { solanaConfigSchema } from "./features/sponsorship/solana/config";
import { webhooksConfigSchema } from "./features/webhooks/config";
import { signingPolicySchema } from "./keyManagement/policies/policySchema";
import { rateLimitsSchema } from "./limits/config";
import { retentionSchema } from "./limits/retention";
import { MAIL_LOCALES } from "./mail/locales";

// The config file (`serve --config`): the service's settings and its apps. Each feature's part is written
// beside the feature (features/<name>/config.ts, limits/config.ts) and composed here.

/** An origin, or a loopback host on any port for local development (`http://localhost:*`). */
const originSchema = z.union([
  z.string().refine(isLoopbackAnyPort),
  z
    .string()
    .url()
    .transform((u) => new URL(u).origin),
]);

/** A return URL, or one on a loopback host on any port (`http://localhost:*\/done`). */
const returnUrlSchema = z.union([
  z.string().regex(/^http:\/\/(localhost|127\.0\.0\.1|\[::1\]):\*(\/\S*)?$/),
  z.string().url(),
]);

export const appConfigSchema = z.object({
  id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  name: z.string().min(1).max(128),
  /** Plain API keys; stored hashed. */
  apiKeys: z.array(z.string().min(16).max(256)).default([]),
  allowedOrigins: z.array(originSchema).default([]),
  emailMode: z.enum(["OTP", "MAGIC_LINK"]).default("OTP"),
  magicLinkRedirectUrls: z.array(returnUrlSchema).default([]),
  /** Passkeys: relying-party id and origins; default to the first allowed origin's host and the allowed origins. */
  webauthn: z
    .object({ rpId: z.string().min(1).optional(), origins: z.array(originSchema).optional() })
    .optional(),
  /** Social sign-in providers (OpenID Connect). */
  oauthProviders: z.array(oauthProviderConfigSchema).default([]),
  /**
   * A JWT from the app's own backend accepted in place of an API key (spec §3 "api key or jwt"): signed
   * by a key in `jwksUrl`, issued by `issuer`, for `audience` (default: the app's id), not expired.
   */
  jwt: z
    .object({
      issuer: z.string().min(1).max(512),
      jwksUrl: z.string().url(),
      audience: z.string().min(1).max(512).optional(),
    })
    .optional(),
  /** Where a redirect-mode social sign-in may return to (defaults to the magic-link URLs). */
  oauthRedirectUrls: z.array(returnUrlSchema).default([]),
  /** The language of the app's mails: sign-in codes, magic links, security notices. */
  locale: z.enum(MAIL_LOCALES).default("en"),
  /**
   * How the app's new users' wallets are kept (docs/split-custody.md): "service" (the service holds each
   * wallet sealed and signs alone) or "split" (made in the user's key holder and split 2-of-2 with the
   * service: every signature needs the user's share).
   */
  custody: z.enum(["service", "split"]).default("service"),
  /**
   * Sponsorship at /rpc/v1: gas for EVM user operations (ERC-7677 paymaster, `policies`) and fees of
   * Solana transactions (`solanaPolicies`); a client picks a policy by its id.
   */
  sponsorship: sponsorshipConfigSchema.optional(),
  /**
   * What the service signs for the app's users: rules by chain, contract, selector and value, raw-payload
   * signing, and the admin keys that approve what a rule holds (keyManagement/policies; README "Signing
   * policies"). Without one, every signature is made.
   */
  signingPolicy: signingPolicySchema.optional(),
  /** Endpoints the app's events are POSTed to, signed per Standard Webhooks (features/webhooks). */
  webhooks: webhooksConfigSchema.default([]),
  /** Keys the app's backend signs backend-API requests with: signing for users within their grants. */
  serverKeys: serverKeysSchema,
});
/** An app as written in a config file (defaults may be left out). */
export type AppConfig = z.input<typeof appConfigSchema>;

export const fileConfigSchema = z.object({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().optional(),
  db: z.string().optional(),
  publicUrl: z.string().url().optional(),
  masterKeyFile: z.string().optional(),
  smtp: z.object({ url: z.string(), from: z.string().optional() }).optional(),
  mailFrom: z.string().optional(),
  rateLimits: rateLimitsSchema.partial().optional(),
  /** How long rows that grow with use are kept (limits/retention.ts); LATCHKEY_RETENTION_* override it. */
  retention: retentionSchema.partial().optional(),
  trustProxy: z.boolean().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  apps: z.array(appConfigSchema).default([]),
  /**
   * EVM chains for sponsorship (each app's policies name one by chainId) and Sign-In with Ethereum (when
   * any is listed, only these chains may sign in; their nodes check contract wallets' signatures).
   */
  chains: chainsSchema.default([]),
  /** Solana: the node the fee payer's transactions go to, asked whether a blockhash is still valid. */
  solana: solanaConfigSchema.optional(),
  /**
   * Wallets kept derived ahead of sign-ups, for launch-day spikes (default 0: each sign-up derives its
   * own). Refilled while the service is mostly idle; LATCHKEY_WALLET_RESERVE sets it too.
   */
  walletReserve: z.number().int().min(0).max(1_000_000).optional(),
});
export type FileConfig = z.infer<typeof fileConfigSchema>;

export function readConfigFile(path: string): FileConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`Cannot read config file ${path}: ${(e as Error).message}`);
  }
  const parsed = fileConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid config file ${path}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
