import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import { z } from "zod";
import { type AppConfig, appConfigSchema } from "../config";
import type { Keyring } from "../crypto/keyring";
import type { Db } from "../db";
import type { AppsTable } from "../db/schema";
import {
  KNOWN_OAUTH_PROVIDERS,
  type OauthProviderConfig,
  oauthProviderConfigSchema,
} from "../features/oauth/config";
import type { SponsorshipConfig } from "../features/sponsorship/config";
import { SIMPLE_7702_ACCOUNT_V08 } from "../features/sponsorship/evm/config";
import { loopbackWebhookIssue } from "../features/webhooks/config";
import { storeWebhookEndpoints } from "../features/webhooks/endpoints";
import type { SigningPolicy } from "../keyManagement/policies/policySchema";
import { type MailLocale, mailLocale } from "../mail/locales";

export interface App {
  id: string;
  name: string;
  orgId: string;
  emailMode: "OTP" | "MAGIC_LINK";
  allowedOrigins: string[];
  magicLinkRedirectUrls: string[];
  /** WebAuthn relying party: id (a registrable domain) and the origins passkey ceremonies may come from. */
  webauthn: { rpId: string; origins: string[] };
  /** Social sign-in providers; client secrets stay sealed until a code exchange needs one. */
  oauthProviders: StoredOauthProvider[];
  oauthRedirectUrls: string[];
  /** When set, the app's backend may authenticate with a JWT instead of an API key (apps/appJwt.ts). */
  jwt?: { issuer: string; jwksUrl: string; audience?: string };
  /** The language of the app's mails. */
  locale: MailLocale;
  /** Sponsorship policies, EVM and Solana (features/sponsorship); none when the app sponsors nothing. */
  sponsorship: SponsorshipConfig;
  /** What the service signs for the app's users (keyManagement/policies); none: every signature is made. */
  signingPolicy?: SigningPolicy;
  /** How the app's new users' wallets are kept: "service" or "split" (docs/split-custody.md). */
  custody: "service" | "split";
}

export interface StoredOauthProvider {
  id: string;
  issuer: string;
  clientId: string;
  sealedClientSecret?: string;
  scopes: string[];
  isCustomProvider: boolean;
  auth0Connection?: string;
  displayName: string;
  allowInsecureHttp: boolean;
  /** OAuth 2.0 providers: endpoints other than the provider's real ones (local stand-ins). */
  endpoints?: { authorization?: string; token?: string; userInfo?: string };
  /** Sign in with Apple: the team, the key id and the `.p8` key, sealed (`oauth_apple_key:<app>:<id>`). */
  apple?: { teamId: string; keyId: string; sealedPrivateKey: string };
}

function storeProvider(
  keyring: Keyring | undefined,
  appId: string,
  p: OauthProviderConfig,
): StoredOauthProvider {
  const known = KNOWN_OAUTH_PROVIDERS[p.id];
  if ((p.clientSecret || p.apple) && !keyring)
    throw new Error("A keyring is needed to store an OAuth client secret");
  return {
    id: p.id,
    issuer: (p.issuer ?? known?.issuer ?? "").replace(/\/$/, ""),
    clientId: p.clientId,
    ...(p.clientSecret && keyring
      ? {
          sealedClientSecret: keyring.seal(
            new TextEncoder().encode(p.clientSecret),
            `oauth_client:${appId}:${p.id}`,
          ),
        }
      : {}),
    scopes: p.scopes ?? known?.scopes ?? ["openid", "email", "profile"],
    isCustomProvider: p.isCustomProvider ?? !known,
    ...(p.auth0Connection ? { auth0Connection: p.auth0Connection } : {}),
    displayName: p.displayName ?? known?.name ?? p.id,
    allowInsecureHttp: p.allowInsecureHttp ?? false,
    ...(p.endpoints ? { endpoints: p.endpoints } : {}),
    ...(p.apple && keyring
      ? {
          apple: {
            teamId: p.apple.teamId,
            keyId: p.apple.keyId,
            sealedPrivateKey: keyring.seal(
              new TextEncoder().encode(p.apple.privateKey),
              `oauth_apple_key:${appId}:${p.id}`,
            ),
          },
        }
      : {}),
  };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function newApiKey(): string {
  return `lk_${randomBytes(24).toString("base64url")}`;
}

/**
 * An `apps` row as `toApp` reads it: every column but the timestamps and the server keys (read by
 * features/grants/serverKeys.ts), its JSON still text.
 */
type AppRow = Omit<Selectable<AppsTable>, "created_at" | "updated_at" | "server_keys">;

function toApp(row: AppRow): App {
  const allowedOrigins = JSON.parse(row.allowed_origins) as string[];
  const origins = row.webauthn_origins ? (JSON.parse(row.webauthn_origins) as string[]) : allowedOrigins;
  const firstHost = origins[0] ? new URL(origins[0].replace(/:\*$/, "")).hostname : "localhost";
  return {
    webauthn: { rpId: row.webauthn_rp_id ?? firstHost, origins },
    id: row.id,
    name: row.name,
    orgId: row.org_id,
    locale: mailLocale(row.locale),
    emailMode: row.email_mode,
    allowedOrigins,
    magicLinkRedirectUrls: JSON.parse(row.magic_link_urls) as string[],
    oauthProviders: row.oauth_providers ? (JSON.parse(row.oauth_providers) as StoredOauthProvider[]) : [],
    oauthRedirectUrls: row.oauth_redirect_urls
      ? (JSON.parse(row.oauth_redirect_urls) as string[])
      : (JSON.parse(row.magic_link_urls) as string[]),
    ...(row.jwt_config ? { jwt: JSON.parse(row.jwt_config) as NonNullable<App["jwt"]> } : {}),
    sponsorship: storedSponsorship(row.sponsorship),
    ...(row.signing_policy ? { signingPolicy: JSON.parse(row.signing_policy) as SigningPolicy } : {}),
    custody: row.custody === "split" ? "split" : "service",
  };
}

/**
 * The stored policies (rows written before Solana sponsorship have no `solanaPolicies`, before 7702
 * accounts no `allowedImplementations`: Simple7702Account then).
 */
function storedSponsorship(json: string | null | undefined): SponsorshipConfig {
  const stored = json ? (JSON.parse(json) as Partial<SponsorshipConfig>) : {};
  const policies = (stored.policies ?? []).map((p) => ({
    ...p,
    allowedImplementations: p.allowedImplementations ?? [SIMPLE_7702_ACCOUNT_V08],
  }));
  return { policies, solanaPolicies: stored.solanaPolicies ?? [] };
}

/**
 * Creates or updates an app, and adds any of `apiKeys` it does not have yet. OAuth client secrets are
 * sealed with `keyring`, which is needed when the config carries one.
 *
 * @example
 * const app = await upsertApp({ db, keyring, now: Date.now() }, { id: "shop", name: "Shop", … });
 */
export async function upsertApp(
  ctx: {
    db: Db;
    now: number;
    keyring?: Keyring /** Dev mode: webhooks may go to loopback. */;
    dev?: boolean;
  },
  input: AppConfig,
): Promise<App> {
  const { db, now, keyring } = ctx;
  const cfg = appConfigSchema.parse(input);
  const loopback = loopbackWebhookIssue(cfg.id, cfg.webhooks, { allowLoopback: ctx.dev ?? false });
  if (loopback) throw new Error(loopback);
  const providers = cfg.oauthProviders.map((p) => storeProvider(keyring, cfg.id, p));
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom("apps").selectAll().where("id", "=", cfg.id).executeTakeFirst();
    const values = {
      name: cfg.name,
      email_mode: cfg.emailMode,
      allowed_origins: JSON.stringify(cfg.allowedOrigins),
      magic_link_urls: JSON.stringify(cfg.magicLinkRedirectUrls),
      webauthn_rp_id: cfg.webauthn?.rpId ?? null,
      webauthn_origins: cfg.webauthn?.origins ? JSON.stringify(cfg.webauthn.origins) : null,
      oauth_providers: JSON.stringify(providers),
      oauth_redirect_urls: cfg.oauthRedirectUrls.length ? JSON.stringify(cfg.oauthRedirectUrls) : null,
      jwt_config: cfg.jwt ? JSON.stringify(cfg.jwt) : null,
      locale: cfg.locale,
      sponsorship:
        cfg.sponsorship?.policies.length || cfg.sponsorship?.solanaPolicies.length
          ? JSON.stringify(cfg.sponsorship)
          : null,
      signing_policy: cfg.signingPolicy ? JSON.stringify(cfg.signingPolicy) : null,
      server_keys: cfg.serverKeys.length ? JSON.stringify(cfg.serverKeys) : null,
      custody: cfg.custody,
      updated_at: now,
    };
    if (existing) {
      await trx.updateTable("apps").set(values).where("id", "=", cfg.id).execute();
    } else {
      await trx
        .insertInto("apps")
        .values({ id: cfg.id, org_id: randomUUID(), created_at: now, ...values })
        .execute();
    }
    for (const key of cfg.apiKeys) {
      await trx
        .insertInto("app_api_keys")
        .values({
          id: randomUUID(),
          app_id: cfg.id,
          key_hash: hashApiKey(key),
          key_prefix: key.slice(0, 6),
          created_at: now,
          revoked_at: null,
        })
        .onConflict((oc) => oc.column("key_hash").doNothing())
        .execute();
    }
    await storeWebhookEndpoints({ trx, now, keyring }, cfg.id, cfg.webhooks);
    const row = await trx.selectFrom("apps").selectAll().where("id", "=", cfg.id).executeTakeFirstOrThrow();
    return toApp(row);
  });
}

/**
 * Replaces an app's social sign-in providers, and nothing else of it (client secrets sealed with
 * `keyring`): what dev mode does once its local providers listen, without saving the app again (which
 * would drop what only the config gave it, such as its server keys and webhooks).
 */
export async function setOauthProviders(
  ctx: { db: Db; now: number; keyring?: Keyring },
  appId: string,
  providers: readonly z.input<typeof oauthProviderConfigSchema>[],
): Promise<void> {
  const parsed = z.array(oauthProviderConfigSchema).parse(providers);
  const stored = parsed.map((p) => storeProvider(ctx.keyring, appId, p));
  const result = await ctx.db
    .updateTable("apps")
    .set({ oauth_providers: JSON.stringify(stored), updated_at: ctx.now })
    .where("id", "=", appId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new Error(`No app ${appId}`);
}

/** Adds a fresh API key to an app and returns it (the only time it is ever shown). */
export async function createAppApiKey(ctx: { db: Db; now: number }, appId: string): Promise<string> {
  const { db, now } = ctx;
  const key = newApiKey();
  await db
    .insertInto("app_api_keys")
    .values({
      id: randomUUID(),
      app_id: appId,
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, 6),
      created_at: now,
      revoked_at: null,
    })
    .execute();
  return key;
}

/** An admin key of an app's signing policy: who may approve or reject the app's held activities. */
export interface AppAdminKey {
  appId: string;
  /** The app's organisation: what an admin's stamped body is addressed to. */
  orgId: string;
  name: string;
  publicKey: string;
}

/**
 * Resolves apps by API key and knows every allowed origin, with a short cache so that the hot path does
 * not query per request while changes made by another process (the CLI) still show within seconds.
 */
export class AppDirectory {
  #byKeyHash = new Map<string, { app: App | null; at: number }>();
  #origins: { set: Set<string>; at: number } | null = null;
  #policies = new Map<string, { policy: SigningPolicy | undefined; at: number }>();
  #adminKeys: { byKey: Map<string, AppAdminKey>; at: number } | null = null;

  readonly #db: Db;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(options: { db: Db; now: () => number; ttlMs?: number }) {
    this.#db = options.db;
    this.#now = options.now;
    this.#ttlMs = options.ttlMs ?? 5000;
  }

  async byApiKey(key: string): Promise<App | null> {
    const now = this.#now();
    const keyHash = hashApiKey(key);
    const cached = this.#byKeyHash.get(keyHash);
    if (cached && now - cached.at < this.#ttlMs) return cached.app;
    const row = await this.#db
      .selectFrom("app_api_keys")
      .innerJoin("apps", "apps.id", "app_api_keys.app_id")
      .select([
        "apps.id",
        "apps.name",
        "apps.org_id",
        "apps.email_mode",
        "apps.allowed_origins",
        "apps.magic_link_urls",
        "apps.webauthn_rp_id",
        "apps.webauthn_origins",
        "apps.oauth_providers",
        "apps.oauth_redirect_urls",
        "apps.jwt_config",
        "apps.locale",
        "apps.sponsorship",
        "apps.signing_policy",
        "apps.custody",
      ])
      .where("app_api_keys.key_hash", "=", keyHash)
      .where("app_api_keys.revoked_at", "is", null)
      .executeTakeFirst();
    const app = row ? toApp(row) : null;
    if (this.#byKeyHash.size > 10_000) this.#byKeyHash.clear();
    this.#byKeyHash.set(keyHash, { app, at: now });
    return app;
  }

  async byId(id: string): Promise<App | null> {
    const row = await this.#db.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toApp(row) : null;
  }

  /**
   * The app's signing policy, read on every signature: cached like the apps by key, so a change made by
   * another process (the CLI, a restart with a new config) applies within the cache's few seconds.
   */
  async signingPolicyOf(appId: string): Promise<SigningPolicy | undefined> {
    const now = this.#now();
    const cached = this.#policies.get(appId);
    if (cached && now - cached.at < this.#ttlMs) return cached.policy;
    const row = await this.#db
      .selectFrom("apps")
      .select("signing_policy")
      .where("id", "=", appId)
      .executeTakeFirst();
    const policy = row?.signing_policy ? (JSON.parse(row.signing_policy) as SigningPolicy) : undefined;
    if (this.#policies.size > 10_000) this.#policies.clear();
    this.#policies.set(appId, { policy, at: now });
    return policy;
  }

  /**
   * The app whose signing policy lists this admin key (compressed P-256, hex), with the key's name; null
   * for any other key. Cached like the rest, so a key removed from the config stops within seconds.
   */
  async adminKey(publicKey: string): Promise<AppAdminKey | null> {
    const now = this.#now();
    if (!this.#adminKeys || now - this.#adminKeys.at >= this.#ttlMs) {
      const rows = await this.#db
        .selectFrom("apps")
        .select(["id", "org_id", "signing_policy"])
        .where("signing_policy", "is not", null)
        .execute();
      const byKey = new Map<string, AppAdminKey>();
      for (const row of rows) {
        const policy = JSON.parse(row.signing_policy as string) as SigningPolicy;
        for (const key of policy.adminKeys ?? [])
          byKey.set(key.publicKey, {
            appId: row.id,
            orgId: row.org_id,
            name: key.name,
            publicKey: key.publicKey,
          });
      }
      this.#adminKeys = { byKey, at: now };
    }
    return this.#adminKeys.byKey.get(publicKey.toLowerCase()) ?? null;
  }

  /** Every origin some app allows: what a CORS preflight (which carries no API key) is checked against. */
  async allOrigins(): Promise<Set<string>> {
    const now = this.#now();
    if (this.#origins && now - this.#origins.at < this.#ttlMs) return this.#origins.set;
    const rows = await this.#db.selectFrom("apps").select("allowed_origins").execute();
    const set = new Set<string>();
    for (const r of rows) for (const o of JSON.parse(r.allowed_origins) as string[]) set.add(o);
    this.#origins = { set, at: now };
    return set;
  }

  invalidate(): void {
    this.#byKeyHash.clear();
    this.#origins = null;
    this.#policies.clear();
    this.#adminKeys = null;
  }
}
