import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type App, createAppApiKey, hashApiKey, upsertApp } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import type { ServiceOptions } from "../createService";
import type { ChainConfig } from "../features/sponsorship/evm/config";
import type { SolanaConfig } from "../features/sponsorship/solana/config";
import { devServerKey } from "./devServerKey";
import { DEV_SIGNING_POLICY } from "./devSigningPolicy";

/** The dev app's id. */
export const DEV_APP_ID = "dev";

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

/**
 * The dev app (dev mode only): any local port may use it, its API key is kept in the data folder (or
 * given), every configured chain with a paymaster and the Solana fee payer sponsor its users, and its
 * signing policy refuses the burn address. Set up again at every start.
 */
export async function ensureDevApp(
  ctx: ServiceContext,
  opts: ServiceOptions,
  env: NodeJS.ProcessEnv,
): Promise<{ app: App; apiKey: string; serverKeyFile: string }> {
  const dataDir = opts.dataDir ?? ".latchkey";
  // Dev only: a server key kept in the data folder, so a local bot can sign within users' grants.
  const serverKey = devServerKey(dataDir);
  const keyFile = join(dataDir, "dev-api-key");
  let apiKey = opts.devApiKey ?? env.LATCHKEY_DEV_API_KEY;
  if (!apiKey && existsSync(keyFile)) apiKey = readFileSync(keyFile, "utf8").trim();
  // Dev only: any local port, so an app beside `latchkey serve --dev` works wherever its dev server runs.
  const origins = opts.devOrigins ?? ["http://localhost:*", "http://127.0.0.1:*"];
  // An app `dev` in the config adds to the dev app what dev mode does not set: its server keys (beside
  // dev-bot's), its webhooks and its signing policy stay.
  const configured = opts.apps?.find((a) => a.id === DEV_APP_ID);
  const devBot = { name: "dev-bot", publicKey: serverKey.publicKey };
  const configuredKeys = (configured?.serverKeys ?? []).filter(
    (k) => k.publicKey.toLowerCase() !== devBot.publicKey,
  );
  const app = await upsertApp(
    { db: ctx.db, now: ctx.now(), keyring: ctx.keyring, dev: true },
    {
      id: DEV_APP_ID,
      name: "Latchkey Dev",
      apiKeys: apiKey ? [apiKey] : [],
      allowedOrigins: origins,
      emailMode: opts.devEmailMode ?? "OTP",
      custody: opts.devCustody ?? "service",
      magicLinkRedirectUrls: opts.devMagicLinkUrls ?? origins.map((origin) => `${origin}/`),
      // Dev only: every chain with a paymaster sponsors the dev app's users (policy `dev-<chainId>`), and
      // so does the Solana fee payer when a Solana node is set (policy `dev-solana`, up to 10 SOL moved).
      sponsorship: {
        policies: devSponsorshipPolicies(opts.chains ?? []),
        solanaPolicies: devSolanaPolicies(opts.solana),
      },
      // Dev only: a signing policy that refuses transactions to the burn address (the demo shows it).
      signingPolicy: configured?.signingPolicy ?? DEV_SIGNING_POLICY,
      serverKeys: [devBot, ...configuredKeys],
      ...(configured?.webhooks ? { webhooks: configured.webhooks } : {}),
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
  return { app, apiKey, serverKeyFile: serverKey.file };
}
