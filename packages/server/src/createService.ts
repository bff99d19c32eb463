import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { join } from "node:path";
import { createSolanaRpc } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { createPublicClient, http as httpTransport } from "viem";
import { z } from "zod";
import { type App, AppDirectory, createAppApiKey, hashApiKey, upsertApp } from "./apps/appDirectory";
import {
  type AppConfig,
  appConfigSchema,
  type ChainConfig,
  chainsSchema,
  type RateLimits,
  rateLimitsSchema,
  type SolanaConfig,
  solanaConfigSchema,
} from "./config";
import type { ConfiguredChain, Random, ServiceContext } from "./context";
import { Keyring, loadMasterKey } from "./crypto/keyring";
import { WalletDeriver } from "./crypto/walletPool";
import { migrate, openDatabase } from "./db";
import { prepared, rowSlots } from "./db/prepared";
import { DEV_SIGNING_POLICY } from "./dev/devSigningPolicy";
import { features } from "./features";
import { createHttpApp } from "./http/app";
import { SWEEP_INTERVAL_MS, sweepExpired } from "./limits/sweeper";
import { Mailer } from "./mail/mailer";
import { ServiceKeys } from "./serviceKeys/serviceKeys";
import { WalletReserve } from "./users/walletReserve";

export type { ServiceContext } from "./context";

export interface ServiceOptions {
  /** SQLite file path (`:memory:` for tests) or a `postgres://` URL. */
  db: string;
  dev?: boolean;
  /** 32 bytes; otherwise from LATCHKEY_MASTER_KEY, LATCHKEY_MASTER_KEY_FILE or `masterKeyFile`. */
  masterKey?: Buffer;
  masterKeyFile?: string;
  smtpUrl?: string;
  mailFrom?: string;
  rateLimits?: Partial<RateLimits>;
  apps?: AppConfig[];
  /**
   * EVM chains for gas sponsorship (JSON-RPC URL, EntryPoint v0.8, account factory, paymaster) and Sign-In
   * with Ethereum (when set, only these chains sign in; their nodes check contract wallets' signatures).
   */
  chains?: ChainConfig[];
  /**
   * Solana: the node whose view of blockhashes and of the fee payer's balance Solana fee sponsorship
   * checks against. Without it, sponsorship still works and skips those checks.
   */
  solana?: SolanaConfig;
  logLevel?: string;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  trustProxy?: boolean;
  /** The service's public base URL, e.g. https://auth.example.com: the OAuth callback, SIWE tokens' `iss`. */
  publicUrl?: string;
  /** Where dev files live (master key, dev API key). */
  dataDir?: string;
  /** Fixed dev API key (LATCHKEY_DEV_API_KEY). */
  devApiKey?: string;
  /** Origins the dev app allows, besides the service's own. */
  devOrigins?: string[];
  devMagicLinkUrls?: string[];
  /** The dev app's email mode (default OTP). */
  devEmailMode?: "OTP" | "MAGIC_LINK";
  now?: () => number;
  /** Randomness for ids and codes (node:crypto by default; tests may make it deterministic). */
  random?: Random;
  env?: NodeJS.ProcessEnv;
  /** Worker threads deriving new wallets (default: cores - 1, at most 4; 0 derives on the event loop). */
  walletWorkers?: number;
  /**
   * Wallets to keep derived ahead of sign-ups (default 0, none; LATCHKEY_WALLET_RESERVE): the service
   * refills them while it is mostly idle, and a burst of sign-ups takes them instead of deriving.
   */
  walletReserve?: number;
  /** How long `close()` lets in-flight requests finish before it drops the remaining connections (default 5000 ms). */
  closeGraceMs?: number;
}

export interface Service {
  ctx: ServiceContext;
  http: FastifyInstance;
  /** Set in dev mode: the dev app and its API key. */
  devApp?: { app: App; apiKey: string };
  /**
   * The address of the key the service signs sponsored user operations with (made on first use, sealed at
   * rest): add it to the paymaster's signers.
   */
  paymasterSignerAddress(): Promise<`0x${string}`>;
  /**
   * The Solana address (base58) of the key that pays sponsored Solana transactions' fees (made on first
   * use, sealed at rest): fund it with SOL on the cluster the apps' users send to.
   */
  solanaFeePayerAddress(): Promise<string>;
  listen(opts: { port: number; host?: string }): Promise<string>;
  /** Stops taking requests, lets in-flight ones finish (up to `closeGraceMs`), then closes storage. */
  close(): Promise<void>;
}

export const DEV_APP_ID = "dev";

// Sign-ups and sign-ins write one each: compiled once (db/prepared.ts).
const insertAuditRow = prepared((db, $) =>
  db
    .insertInto("audit_log")
    .values(rowSlots($, ["id", "app_id", "user_id", "event", "ip", "details", "created_at"] as const)),
);

const cryptoRandom: Random = {
  uuid: () => randomUUID(),
  bytes: (n) => randomBytes(n),
  int: (maxExclusive) => randomInt(0, maxExclusive),
};

/**
 * The composition root: opens storage, runs migrations, loads keys and apps, builds the context and the
 * HTTP service with every feature registered (not yet listening).
 *
 * @example
 * const service = await createService({ db: ".latchkey/latchkey.db", dev: true });
 * console.log(await service.listen({ port: 8787 }));
 */
export async function createService(opts: ServiceOptions): Promise<Service> {
  const env = opts.env ?? process.env;
  const dev = opts.dev ?? false;
  const dataDir = opts.dataDir ?? ".latchkey";
  const chainSettings = parseChains(opts.chains ?? []);
  const solanaSettings = parseSolana(opts.solana);
  checkPolicyChains(opts.apps ?? [], chainSettings);
  const opened = openDatabase(opts.db);
  try {
    await migrate(opened.db);
    const masterKey =
      opts.masterKey ??
      loadMasterKey({
        env,
        dev,
        keyFile:
          opts.masterKeyFile ??
          env.LATCHKEY_MASTER_KEY_FILE ??
          (dev ? join(dataDir, "master.key") : undefined),
      });
    const keyring = new Keyring(opened.db, masterKey);
    await keyring.init();
    const mailer = new Mailer({
      smtpUrl: opts.smtpUrl ?? env.LATCHKEY_SMTP_URL,
      from: opts.mailFrom ?? env.LATCHKEY_MAIL_FROM,
      devMailbox: dev,
    });
    if (!mailer.canDeliver) {
      throw new Error(
        "No way to send mail: set LATCHKEY_SMTP_URL (or smtp.url in the config file), or run with --dev",
      );
    }
    const now = opts.now ?? Date.now;
    const db = opened.db;
    const wallets = new WalletDeriver(opts.walletWorkers);
    const random = opts.random ?? cryptoRandom;
    const chains = new Map<number, ConfiguredChain>(
      chainSettings.map((c) => [
        c.chainId,
        {
          ...c,
          client: createPublicClient({
            transport: httpTransport(c.rpcUrl, { batch: true, timeout: 10_000, retryCount: 1 }),
          }),
        },
      ]),
    );
    const ctx: ServiceContext = {
      db,
      dbKind: opened.kind,
      keyring,
      mailer,
      apps: new AppDirectory({ db, now }),
      limits: rateLimitsSchema.parse(opts.rateLimits ?? {}),
      now,
      random,
      otpKey: keyring.deriveKey("otp"),
      wallets,
      caches: {
        stampKeys: new Map(),
        signingAccounts: new Map(),
        providerRuntimes: new Map(),
        appJwks: new Map(),
      },
      dev,
      chains,
      serviceKeys: new ServiceKeys({ db, keyring, now, random }),
      ...(solanaSettings
        ? { solana: { rpcUrl: solanaSettings.rpcUrl, rpc: createSolanaRpc(solanaSettings.rpcUrl) } }
        : {}),
      ...(opts.publicUrl ? { publicUrl: opts.publicUrl.replace(/\/$/, "") } : {}),
      async audit(event, f, into = db) {
        await insertAuditRow(into, {
          id: ctx.random.uuid(),
          app_id: f.appId ?? null,
          user_id: f.userId ?? null,
          event,
          ip: f.ip ?? null,
          details: f.details ? JSON.stringify(f.details) : null,
          created_at: now(),
        });
      },
    };
    const reserveTarget = opts.walletReserve ?? Number(env.LATCHKEY_WALLET_RESERVE ?? 0);
    if (!Number.isInteger(reserveTarget) || reserveTarget < 0) {
      throw new Error("walletReserve (LATCHKEY_WALLET_RESERVE) takes a whole number of wallets, 0 or more");
    }
    const walletReserve =
      reserveTarget > 0
        ? new WalletReserve(ctx, {
            target: reserveTarget,
            onError: (e) => http.log.warn({ err: e }, "refilling the wallet reserve failed"),
          })
        : undefined;
    if (walletReserve) ctx.walletReserve = walletReserve;
    for (const app of opts.apps ?? []) await upsertApp({ db, now: now(), keyring }, app);

    let devApp: Service["devApp"];
    if (dev) devApp = await ensureDevApp(ctx, opts, env);

    let sweeping: Promise<unknown> = Promise.resolve();
    const sweep = () => {
      sweeping = sweepExpired(db, now(), ctx.limits.windowSeconds).catch((e: unknown) =>
        http.log.warn({ err: e }, "sweeping expired rows failed"),
      );
    };
    const http = createHttpApp(ctx, {
      logLevel: opts.logLevel ?? "info",
      ...(opts.logStream ? { logStream: opts.logStream } : {}),
      trustProxy: opts.trustProxy ?? false,
    });
    for (const feature of features) feature.register(http, ctx);
    // Expired codes, prepared sign-ins and closed rate-limit windows are deleted as the service runs.
    const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
    sweeper.unref();
    sweep();
    return {
      ctx,
      http,
      devApp,
      paymasterSignerAddress: () => ctx.serviceKeys.address("paymaster"),
      solanaFeePayerAddress: () => ctx.serviceKeys.solanaAddress("solanaFeePayer"),
      async listen({ port, host = "127.0.0.1" }) {
        await http.listen({ port, host });
        // Only a listening service refills (not, say, the process that migrates for a cluster).
        walletReserve?.start();
        const addr = http.server.address();
        const actualPort = typeof addr === "object" && addr ? addr.port : port;
        return `http://${host === "0.0.0.0" ? "localhost" : host}:${actualPort}`;
      },
      async close() {
        clearInterval(sweeper);
        await sweeping;
        // Idle keep-alive sockets are closed at once; a socket still busy (or one a client re-used just as
        // the server stopped) gets the grace period, then is dropped, so a shutdown never hangs.
        const force = setTimeout(() => http.server.closeAllConnections(), opts.closeGraceMs ?? 5000);
        force.unref();
        try {
          await http.close();
        } finally {
          clearTimeout(force);
        }
        await walletReserve?.close();
        await wallets.close();
        await mailer.close();
        await opened.close();
      },
    };
  } catch (e) {
    await opened.close();
    throw e;
  }
}

function parseChains(chains: ChainConfig[]) {
  const parsed = chainsSchema.safeParse(chains);
  if (!parsed.success) throw new Error(`Invalid chains: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function parseSolana(solana: SolanaConfig | undefined) {
  if (!solana) return undefined;
  const parsed = solanaConfigSchema.safeParse(solana);
  if (!parsed.success) throw new Error(`Invalid solana: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** A policy on a chain the service does not know could never sponsor anything: said at start. */
function checkPolicyChains(apps: AppConfig[], chains: { chainId: number }[]) {
  const known = new Set(chains.map((c) => c.chainId));
  for (const input of apps) {
    const app = appConfigSchema.safeParse(input);
    if (!app.success) continue; // upsertApp reports it with the app's other settings
    for (const policy of app.data.sponsorship?.policies ?? []) {
      if (!known.has(policy.chainId))
        throw new Error(
          `App ${app.data.id}: sponsorship policy ${policy.id} is for chain ${policy.chainId}, which is not in chains`,
        );
    }
  }
}

/** The dev app's policy id for a chain: its users' operations there are sponsored (dev only). */
export const devPolicyId = (chainId: number) => `dev-${chainId}`;

/** The dev app's Solana policy, when the service has a Solana node: its users' transactions are sponsored. */
export const DEV_SOLANA_POLICY_ID = "dev-solana";

function devSolanaPolicies(solana: SolanaConfig | undefined) {
  if (!solana) return [];
  return [
    {
      id: DEV_SOLANA_POLICY_ID,
      limits: { transactionsPerUserPerDay: 1_000, lamportsPerTransaction: 10_000_000_000 },
    },
  ];
}

function devSponsorshipPolicies(chains: readonly ChainConfig[]) {
  return chains
    .filter((c) => c.paymaster)
    .map((c) => ({
      id: devPolicyId(c.chainId),
      chainId: c.chainId,
      limits: { operationsPerUserPerDay: 1_000 },
    }));
}

async function ensureDevApp(ctx: ServiceContext, opts: ServiceOptions, env: NodeJS.ProcessEnv) {
  const { readFileSync, writeFileSync, existsSync, mkdirSync } = await import("node:fs");
  const dataDir = opts.dataDir ?? ".latchkey";
  const keyFile = join(dataDir, "dev-api-key");
  let apiKey = opts.devApiKey ?? env.LATCHKEY_DEV_API_KEY;
  if (!apiKey && existsSync(keyFile)) apiKey = readFileSync(keyFile, "utf8").trim();
  // Dev only: any local port, so an app beside `latchkey serve --dev` works wherever its dev server runs.
  const origins = opts.devOrigins ?? ["http://localhost:*", "http://127.0.0.1:*"];
  const app = await upsertApp(
    { db: ctx.db, now: ctx.now() },
    {
      id: DEV_APP_ID,
      name: "Latchkey Dev",
      apiKeys: apiKey ? [apiKey] : [],
      allowedOrigins: origins,
      emailMode: opts.devEmailMode ?? "OTP",
      magicLinkRedirectUrls: opts.devMagicLinkUrls ?? origins.map((origin) => `${origin}/`),
      // Dev only: every chain with a paymaster sponsors the dev app's users (policy `dev-<chainId>`), and
      // so does the Solana fee payer when a Solana node is set (policy `dev-solana`, up to 10 SOL moved).
      sponsorship: {
        policies: devSponsorshipPolicies(opts.chains ?? []),
        solanaPolicies: devSolanaPolicies(opts.solana),
      },
      // Dev only: a signing policy that refuses transactions to the burn address (the demo shows it).
      signingPolicy: DEV_SIGNING_POLICY,
    },
  );
  if (!apiKey) {
    apiKey = await createAppApiKey({ db: ctx.db, now: ctx.now() }, app.id);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
  }
  // A dev key must resolve: if it was revoked by hand, it is an error worth seeing at start.
  const row = await ctx.db
    .selectFrom("app_api_keys")
    .select("revoked_at")
    .where("key_hash", "=", hashApiKey(apiKey))
    .executeTakeFirst();
  if (!row || row.revoked_at !== null)
    throw new Error("The dev API key is revoked; delete .latchkey/dev-api-key");
  return { app, apiKey };
}
