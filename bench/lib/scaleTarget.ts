/**
 * A database of a given size for the scale benchmark, and the service on it: a few hundred users signed
 * up through the service (real wallets, real keys), then filler users and activities bulk-inserted with
 * the service stopped (scaleSeed.ts, scaleStore.ts), then the service started again on the same data
 * (same directory, master key and database).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../../packages/protocol/src/index";
import { type BenchDatabase, createBenchDatabase, dropBenchDatabase } from "./databases";
import { round } from "./report";
import { type RealUser, type ScaleTarget, signInRealUsers } from "./scaleOps";
import { appUsageRows, type SeedPlan, type SeedSpans, seedChunks } from "./scaleSeed";
import { postgresWriter, readOne, settleAfterLoad, sqliteWriter } from "./scaleStore";
import { BENCH_RATE_LIMITS, type ServiceHandle, startService } from "./service";
import { createSession } from "./signerApi";

export const SCALE_APP_ID = "scale";
const API_KEY = "lk_scale_0123456789abcdefghijklmnop";
const POLICY_ID = "pol_scale";
const CHAIN_ID = 31337;
const ENTRY_POINT = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108";
const ALLOWED_TARGET = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
/** Nothing listens there: a 7702 operation that carries its authorization is checked without the chain. */
const NO_NODE = "http://127.0.0.1:9";

/** The service's config: the app with its admin key, sponsorship policy and chain; limits out of the way. */
export function scaleConfig(adminKey: Uint8Array, extra: Record<string, unknown> = {}) {
  return {
    rateLimits: BENCH_RATE_LIMITS,
    chains: [{ chainId: CHAIN_ID, rpcUrl: NO_NODE, paymaster: "0x00000000000000000000000000000000000000aa" }],
    apps: [
      {
        id: SCALE_APP_ID,
        name: "Scale",
        apiKeys: [API_KEY],
        allowedOrigins: [],
        emailMode: "OTP",
        sponsorship: {
          policies: [
            {
              id: POLICY_ID,
              chainId: CHAIN_ID,
              allowedTargets: [{ address: ALLOWED_TARGET, selectors: ["0xd09de08a"] }],
              limits: { operationsPerUserPerDay: 100_000, operationsPerAppPerDay: 1_000_000_000 },
            },
          ],
        },
        signingPolicy: {
          rawPayloads: "allow",
          adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(adminKey, true)) }],
        },
      },
    ],
    ...extra,
  };
}

export interface SeedTimes {
  /** Users made through the service (sign-up with a wallet, then the code). */
  realSignupsSeconds: number;
  /** Filler rows generated and inserted. */
  bulkSeconds: number;
  /** PostgreSQL's VACUUM (ANALYZE) after the load. */
  settleSeconds: number;
  rows: number;
  rowsPerSecond: number;
}

/** A seeded database, not running: start() puts a service on it. */
export interface SeededStore {
  name: string;
  kind: BenchDatabase;
  dir: string;
  dbUrl: string;
  pgName?: string;
  masterKey: string;
  adminKey: Uint8Array;
  plan: SeedPlan;
  real: RealUser[];
  users: number;
  activities: number;
  times: SeedTimes;
}

export interface SeedOptions {
  name: string;
  kind: BenchDatabase;
  users: number;
  activities: number;
  real: number;
  spans: SeedSpans;
  /** Extra config for the service (e.g. retention). */
  config?: Record<string, unknown>;
  log?: (line: string) => void;
}

const say = (o: SeedOptions, line: string) => (o.log ?? ((l) => process.stdout.write(`${l}\n`)))(line);

/** Makes the database: real users through the service, then the filler rows with the service stopped. */
export async function seedStore(o: SeedOptions): Promise<SeededStore> {
  const dir = mkdtempSync(join(os.tmpdir(), `latchkey-scale-${o.kind}-`));
  const masterKey = randomBytes(32).toString("hex");
  const adminKey = generateP256PrivateKey();
  let pgName: string | undefined;
  let dbUrl = join(dir, "scale.db");
  if (o.kind === "postgres") {
    const made = await createBenchDatabase();
    pgName = made.name;
    dbUrl = made.url;
  }
  const seed = randomBytes(3).toString("hex");
  const real: RealUser[] = [];
  const t0 = performance.now();
  const svc = await startService({
    dir,
    dbUrl,
    database: o.kind,
    configApps: true,
    masterKey,
    config: scaleConfig(adminKey, o.config),
    startTimeoutMs: 180_000,
  });
  try {
    let next = 0;
    const signUp = async () => {
      while (next < o.real) {
        const k = next++;
        const s = await createSession(svc, `real${k}.${seed}@scale.example.com`);
        real.push({ email: s.email, orgId: s.orgId, userId: s.userId, address: s.address });
      }
    };
    await Promise.all(Array.from({ length: 8 }, signUp));
  } finally {
    await svc.stop();
  }
  const realSignupsSeconds = (performance.now() - t0) / 1000;
  say(
    o,
    `  ${o.name}: ${real.length} users signed up through the service in ${round(realSignupsSeconds, 1)} s`,
  );

  const key = await readOne<{ id: string }>(o.kind, dbUrl, "SELECT id FROM data_keys WHERE active = 1");
  if (!key) throw new Error("No active data key in the seeded database");
  const plan: SeedPlan = {
    seed,
    appId: SCALE_APP_ID,
    dataKeyId: key.id,
    from: 0,
    to: Math.max(0, o.users - real.length),
    activities: o.activities,
    realOwners: real,
    now: Date.now(),
    spans: o.spans,
    policyId: POLICY_ID,
    chainId: CHAIN_ID,
  };
  const t1 = performance.now();
  const writer = o.kind === "sqlite" ? sqliteWriter(dbUrl) : await postgresWriter(dbUrl);
  let rows = 0;
  let lastReport = t1;
  let fillers = 0;
  try {
    for (const chunk of seedChunks(plan)) {
      for (const r of Object.values(chunk)) rows += r.length;
      fillers += chunk.users.length;
      await writer.write(chunk);
      // Back to the event loop between chunks: signals (Ctrl-C) and timers get their turn.
      await new Promise((r) => setImmediate(r));
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        const s = (lastReport - t1) / 1000;
        say(
          o,
          `  ${o.name}: ${fillers} filler users, ${rows} rows in ${round(s, 0)} s (${round(rows / s, 0)} rows/s)`,
        );
      }
    }
    const usage = appUsageRows(plan);
    rows += usage.length;
    await writer.writeRows("sponsorship_usage", usage);
  } finally {
    await writer.close();
  }
  const bulkSeconds = (performance.now() - t1) / 1000;
  const t2 = performance.now();
  await settleAfterLoad(o.kind, dbUrl);
  const settleSeconds = (performance.now() - t2) / 1000;
  say(
    o,
    `  ${o.name}: ${rows} filler rows in ${round(bulkSeconds, 1)} s (${round(rows / bulkSeconds, 0)} rows/s)` +
      (o.kind === "postgres" ? `, VACUUM (ANALYZE) ${round(settleSeconds, 1)} s` : ""),
  );
  return {
    name: o.name,
    kind: o.kind,
    dir,
    dbUrl,
    ...(pgName ? { pgName } : {}),
    masterKey,
    adminKey,
    plan,
    real,
    users: o.users,
    activities: o.activities,
    times: {
      realSignupsSeconds: round(realSignupsSeconds, 1),
      bulkSeconds: round(bulkSeconds, 1),
      settleSeconds: round(settleSeconds, 1),
      rows,
      rowsPerSecond: round(rows / bulkSeconds, 0),
    },
  };
}

/** Starts the service on a seeded store and signs its real users in: a target to measure. */
export async function startTarget(
  store: SeededStore,
  opts: { config?: Record<string, unknown>; env?: Record<string, string>; cpuProfDir?: string } = {},
): Promise<ScaleTarget> {
  const svc: ServiceHandle = await startService({
    dir: store.dir,
    dbUrl: store.dbUrl,
    database: store.kind,
    configApps: true,
    masterKey: store.masterKey,
    config: scaleConfig(store.adminKey, opts.config),
    startTimeoutMs: 300_000,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
  });
  try {
    const app = await readOne<{ org_id: string }>(
      store.kind,
      store.dbUrl,
      `SELECT org_id FROM apps WHERE id = '${SCALE_APP_ID}'`,
    );
    if (!app) throw new Error("The scale app is not in the database");
    const target: ScaleTarget = {
      name: store.name,
      svc,
      users: store.users,
      plan: store.plan,
      real: store.real,
      appOrgId: app.org_id,
      adminKey: store.adminKey,
      policyId: POLICY_ID,
      chainId: CHAIN_ID,
      entryPoint: ENTRY_POINT,
      allowedTarget: ALLOWED_TARGET,
    };
    await signInRealUsers(target);
    return target;
  } catch (e) {
    await svc.stop();
    throw e;
  }
}

/** Deletes the store: its directory (SQLite file, master key) and its PostgreSQL database. */
export async function dropStore(store: SeededStore): Promise<void> {
  if (store.pgName) await dropBenchDatabase(store.pgName);
  rmSync(store.dir, { recursive: true, force: true });
}

/** Writes what restarts a service on the store later (`--reuse`): its place, keys, plan and real users. */
export function saveStore(store: SeededStore): string {
  const file = join(store.dir, "store.json");
  writeFileSync(
    file,
    JSON.stringify({ ...store, adminKey: Buffer.from(store.adminKey).toString("hex") }, null, 1),
  );
  return file;
}

/** A store saved by saveStore (its database must still be there). */
export function loadStore(file: string): SeededStore {
  const raw = JSON.parse(readFileSync(file, "utf8")) as SeededStore & { adminKey: string };
  return { ...raw, adminKey: new Uint8Array(Buffer.from(raw.adminKey, "hex")) };
}
