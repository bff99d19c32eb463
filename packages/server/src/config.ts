import { readFileSync } from "node:fs";
import { isLoopbackAnyPort } from "@latchkey/protocol";
import { z } from "zod";
import { MAIL_LOCALES } from "./mail/locales";

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

/** Issuers and default scopes of the named providers; any of them can be pointed elsewhere by `issuer`. */
export const KNOWN_OAUTH_PROVIDERS: Record<string, { issuer?: string; scopes: string[]; name: string }> = {
  google: { issuer: "https://accounts.google.com", scopes: ["openid", "email", "profile"], name: "Google" },
  facebook: { issuer: "https://www.facebook.com", scopes: ["openid", "email"], name: "Facebook" },
  apple: { issuer: "https://appleid.apple.com", scopes: ["openid", "email", "name"], name: "Apple" },
  twitch: { issuer: "https://id.twitch.tv/oauth2", scopes: ["openid", "user:read:email"], name: "Twitch" },
  auth0: { scopes: ["openid", "email", "profile"], name: "Auth0" },
};

export const oauthProviderConfigSchema = z
  .object({
    /** google, facebook, apple, twitch, auth0, or a custom id with `isCustomProvider`. */
    id: z.string().regex(/^[a-z0-9_-]{1,64}$/),
    issuer: z.string().url().optional(),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
    isCustomProvider: z.boolean().optional(),
    auth0Connection: z.string().optional(),
    displayName: z.string().optional(),
    /** Allow an http:// issuer (local dev providers only). */
    allowInsecureHttp: z.boolean().optional(),
  })
  .refine((p) => p.issuer || (KNOWN_OAUTH_PROVIDERS[p.id]?.issuer && !p.isCustomProvider), {
    message: "issuer is required for this provider",
  });
export type OauthProviderConfig = z.infer<typeof oauthProviderConfigSchema>;

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
});
/** An app as written in a config file (defaults may be left out). */
export type AppConfig = z.input<typeof appConfigSchema>;

export const rateLimitsSchema = z.object({
  windowSeconds: z.number().int().positive().default(600),
  /** Codes or links mailed to one address per window. */
  mailsPerEmail: z.number().int().positive().default(10),
  /** Codes or links mailed on behalf of one IP per window. */
  mailsPerIp: z.number().int().positive().default(100),
  /** OTP submissions from one IP per window (guards guessing across many codes). */
  otpAttemptsPerIp: z.number().int().positive().default(100),
  /** Email lookups from one IP per window. */
  lookupsPerIp: z.number().int().positive().default(300),
  /** New accounts (email or passkey sign-up) from one IP per window: each one derives a wallet. */
  signupsPerIp: z.number().int().positive().default(100),
  /** Social sign-ins started (prepare-oauth) from one IP per window. */
  oauthPreparesPerIp: z.number().int().positive().default(300),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;

export const fileConfigSchema = z.object({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().optional(),
  db: z.string().optional(),
  publicUrl: z.string().url().optional(),
  masterKeyFile: z.string().optional(),
  smtp: z.object({ url: z.string(), from: z.string().optional() }).optional(),
  mailFrom: z.string().optional(),
  rateLimits: rateLimitsSchema.partial().optional(),
  trustProxy: z.boolean().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  apps: z.array(appConfigSchema).default([]),
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
