import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { join } from "node:path";
import { createSolanaRpc } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { createPublicClient, http as httpTransport } from "viem";
import { z } from "zod";
import { type App, AppDirectory, upsertApp } from "./apps/appDirectory";
import { type AppConfig, appConfigSchema } from "./config";
import type { ConfiguredChain, Random, ServiceContext } from "./context";
import { Keyring } from "./crypto/keyring";
import type { KeyWrapper } from "./crypto/keyWrap/keyWrapper";
import { loadKeyWrapper } from "./crypto/keyWrap/loadKeyWrapper";
import { LocalKeyWrapper } from "./crypto/keyWrap/localKey";
import { WalletDeriver } from "./crypto/walletPool";
import { migrate, openDatabase } from "./db";
import { prepared, rowSlots } from "./db/prepared";
import { features } from "./features";
import type { Feature } from "./features/defineFeature";
import { type ChainConfig, chainsSchema } from "./features/sponsorship/evm/config";
import { type SolanaConfig, solanaConfigSchema } from "./features/sponsorship/solana/config";
import { webhookTuning } from "./features/webhooks/config";
import { WebhookOutbox } from "./features/webhooks/outbox";
import type { ResolveHost } from "./features/webhooks/postWebhook";
import { createHttpApp } from "./http/app";
import { type RateLimits, rateLimitsSchema } from "./limits/config";
import { type RetentionInput, resolveRetention } from "./limits/retention";
import { sweepExpired } from "./limits/sweeper";
import { Mailer } from "./mail/mailer";
import { ServiceKeys } from "./serviceKeys/serviceKeys";
import { WalletReserve } from "./users/walletReserve";

export type { ServiceContext } from "./context";

export interface ServiceOptions {
  /** SQLite file path (`:memory:` for tests) or a `postgres://` URL. */
  db: string;
  /** Dev mode: the dev app, the dev mailbox, a dev master key file. Only `@latchkey/server/dev`'s `createService` takes it. */
  dev?: boolean;
  /** 32 bytes; otherwise from LATCHKEY_MASTER_KEY, LATCHKEY_MASTER_KEY_FILE or `masterKeyFile`. */
  masterKey?: Buffer;
  masterKeyFile?: string;
  /**
   * What wraps the data keys, instead of `masterKey` (closed with the service). Otherwise
   * LATCHKEY_KEY_BACKEND picks: `env` (the master key above) or `pkcs11` (LATCHKEY_PKCS11_*: an HSM).
   */
  keyWrapper?: KeyWrapper;
  smtpUrl?: string;
  mailFrom?: string;
  rateLimits?: Partial<RateLimits>;
  /** How long rows that grow with use are kept (limits/retention.ts); LATCHKEY_RETENTION_* override it. */
  retention?: Partial<RetentionInput>;
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
  /** Dev mode: the dev app's custody mode (default "service"; docs/split-custody.md). */
  devCustody?: "service" | "split";
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
  /** How webhook hosts are resolved before each delivery (DNS by default; tests inject answers). */
  resolveWebhookHost?: ResolveHost;
  /** How long `close()` lets in-flight requests finish before it drops the remaining connections (default 5000 ms). */
  closeGraceMs?: number;
}

export interface Service {
  ctx: ServiceContext;
  http: FastifyInstance;
  /** Set in dev mode: the dev app and its API key. */
  /**
   * Dev mode's app: its API key, and the file of its server key (the backend API's, for a local bot
   * acting within users' grants).
   */
  devApp?: { app: App; apiKey: string; serverKeyFile?: string };
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
 * Dev mode (`dev: true`) is in the dev entry: `import { createService } from "@latchkey/server/dev"`.
 *
 * @example
 * const service = await createService({ db: ".latchkey/latchkey.db", smtpUrl: "smtp://mail.example" });
 * console.log(await service.listen({ port: 8787 }));
 */
export async function createService(opts: ServiceOptions): Promise<Service> {
  if (opts.dev) {
    throw new Error(
      "Dev mode (the dev app, the dev mailbox, the local sign-in providers) is in @latchkey/server/dev: import createService from there, or run `latchkey serve --dev`",
    );
  }
  return composeService(opts);
}

/**
 * What dev mode adds to the service (supplied by the dev entry, `@latchkey/server/dev`, so that the
 * production entry loads none of it): its routes, and the dev app set up at start.
 */
export interface DevMode {
  features: readonly Feature[];
  ensureDevApp(ctx: ServiceContext, opts: ServiceOptions, env: NodeJS.ProcessEnv): Promise<Service["devApp"]>;
}

/** `createService`, with dev mode's additions when `devMode` is given (the dev entry's `createService`). */
export async function composeService(opts: ServiceOptions, devMode?: DevMode): Promise<Service> {
  if (opts.dev && !devMode) throw new Error("Dev mode needs the dev entry (@latchkey/server/dev)");
  const env = opts.env ?? process.env;
  const dev = opts.dev ?? false;
  const dataDir = opts.dataDir ?? ".latchkey";
  const chainSettings = parseChains(opts.chains ?? []);
  const solanaSettings = parseSolana(opts.solana);
  checkPolicyChains(opts.apps ?? [], chainSettings);
  // The master key before the database: one that cannot be reached (a wrong PIN, no token, no key)
  // refuses to start, touching nothing.
  const keyFile =
    opts.masterKeyFile ?? env.LATCHKEY_MASTER_KEY_FILE ?? (dev ? join(dataDir, "master.key") : undefined);
  const keyWrapper =
    opts.keyWrapper ??
    (opts.masterKey
      ? new LocalKeyWrapper(opts.masterKey)
      : await loadKeyWrapper({ env, dev, ...(keyFile ? { keyFile } : {}) }));
  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase(opts.db);
  } catch (e) {
    await keyWrapper.close();
    throw e;
  }
  const keyring = new Keyring(opened.db, keyWrapper);
  try {
    await migrate(opened.db);
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
    const webhooks = new WebhookOutbox({
      db,
      keyring,
      now,
      random,
      tuning: webhookTuning(env),
      onError: (e) => http.log.warn({ err: e }, "delivering webhooks failed"),
      allowLoopback: dev,
      ...(opts.resolveWebhookHost ? { resolveHost: opts.resolveWebhookHost } : {}),
    });
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
        // With the webhook event it makes, if any app endpoint wants one (features/webhooks): both or neither.
        const audited = { id: ctx.random.uuid(), event, fields: f, createdAt: now() };
        await webhooks.record(into, audited, (to) =>
          insertAuditRow(to, {
            id: audited.id,
            app_id: f.appId ?? null,
            user_id: f.userId ?? null,
            event,
            ip: f.ip ?? null,
            details: f.details ? JSON.stringify(f.details) : null,
            created_at: audited.createdAt,
          }),
        );
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
    for (const app of opts.apps ?? []) await upsertApp({ db, now: now(), keyring, dev }, app);

    let devApp: Service["devApp"];
    if (devMode && dev) devApp = await devMode.ensureDevApp(ctx, opts, env);

    const retention = resolveRetention(opts.retention, env);
    let sweeping: Promise<unknown> | undefined;
    let closing = false;
    const sweep = () => {
      // One sweep at a time; it stops between two batches when the service closes.
      sweeping ??= sweepExpired(db, now(), ctx.limits.windowSeconds, retention, () => closing)
        .catch((e: unknown) => http.log.warn({ err: e }, "sweeping expired rows failed"))
        .finally(() => {
          sweeping = undefined;
        });
    };
    const http = createHttpApp(ctx, {
      logLevel: opts.logLevel ?? "info",
      ...(opts.logStream ? { logStream: opts.logStream } : {}),
      trustProxy: opts.trustProxy ?? false,
    });
    for (const feature of [...features, ...(dev ? (devMode?.features ?? []) : [])])
      feature.register(http, ctx);
    // Expired codes, prepared sign-ins and closed rate-limit windows are deleted as the service runs.
    const sweeper = setInterval(sweep, retention.intervalSeconds * 1000);
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
        webhooks.start();
        const addr = http.server.address();
        const actualPort = typeof addr === "object" && addr ? addr.port : port;
        return `http://${host === "0.0.0.0" ? "localhost" : host}:${actualPort}`;
      },
      async close() {
        clearInterval(sweeper);
        closing = true;
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
        await webhooks.close();
        await walletReserve?.close();
        await wallets.close();
        await mailer.close();
        await opened.close();
        await keyring.close();
      },
    };
  } catch (e) {
    await opened.close();
    await keyring.close();
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
