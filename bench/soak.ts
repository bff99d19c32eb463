/**
 * Bounded tables (issue 37 item 2's report): a 10-minute mixed soak with the retention sweeper on. A store
 * of 100,000 users and 1,000,000 activities is seeded with a backlog past the default retention
 * (activities over 180 days, sessions and codes over 30, security events over 800, sponsorship spend over
 * 180: bench/lib/scaleSeed.ts), then the service runs a paced mix of sign-payload, email sign-in, sign-up,
 * sponsored-operation checks, lookups and admin searches while sweeping every minute. Every minute it
 * records each table's rows and bytes and each operation's p50/p99; at the start and the end it counts
 * the rows past retention (what the sweeper must have removed). Writes bench/results/soak.json.
 *
 *   npm run bench:soak [-- --db=sqlite,postgres] [-- --minutes=10] [-- --rate=150]
 *     [-- --users=100000 --activities=1000000] [-- --window=120]
 *
 * Rate-limit windows are 120 s here (default 600 s), so that their rows, kept two windows, are seen to
 * level off within the soak; every other setting is the default (limits/retention.ts).
 */
import http from "node:http";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../packages/protocol/src/index";
import { dbArg } from "./lib/args";
import type { BenchDatabase } from "./lib/databases";
import { percentile, sendRequest } from "./lib/load";
import { describeMachine, finishBench, machineInfo, round, runBench, table } from "./lib/report";
import { anyUser, SCALE_OPS, type ScaleTarget, signInOnce } from "./lib/scaleOps";
import type { SeedSpans } from "./lib/scaleSeed";
import { readOne, storeSizes } from "./lib/scaleStore";
import { dropStore, seedStore, startTarget } from "./lib/scaleTarget";
import { BENCH_RATE_LIMITS, sleep } from "./lib/service";

const argv = process.argv.slice(2);
const num = (name: string, fallback: number) => {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  const n = a ? Number(a.slice(name.length + 3).replace(/_/g, "")) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number`);
  return n;
};
const MINUTES = num("minutes", 10);
const RATE = num("rate", 150);
const USERS = num("users", 100_000);
const ACTIVITIES = num("activities", 1_000_000);
const WINDOW_SECONDS = num("window", 120);
const CONCURRENCY = 32;
const DAY = 24 * 60 * 60 * 1000;

/** Half of each kind of row past its default retention. */
const BACKLOG_SPANS: SeedSpans = {
  users: 730,
  activities: 180,
  sessions: 30,
  codes: 30,
  audit: 800,
  sponsorship: 180,
};

/** The mix, by weight: what a busy app's traffic is made of. */
const MIX: { op: string; weight: number }[] = [
  { op: "sign_payload", weight: 50 },
  { op: "email_sign_in", weight: 8 },
  { op: "sign_up", weight: 4 },
  { op: "sponsor_policy_check", weight: 12 },
  { op: "lookup_by_email", weight: 10 },
  { op: "admin_search_email", weight: 6 },
  { op: "admin_search_address", weight: 5 },
  { op: "admin_users_list", weight: 5 },
];
const TOTAL_WEIGHT = MIX.reduce((a, m) => a + m.weight, 0);
function pickOp(): string {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const m of MIX) {
    r -= m.weight;
    if (r < 0) return m.op;
  }
  return "sign_payload";
}

/** Rows past the default retention, per sweep rule (what the sweeper must remove). */
async function pastRetention(kind: BenchDatabase, url: string, now: number): Promise<Record<string, number>> {
  const checks: Record<string, string> = {
    activities: `select count(*) as n from activities where status in ('ACTIVITY_STATUS_COMPLETED','ACTIVITY_STATUS_FAILED','ACTIVITY_STATUS_REJECTED') and created_at < ${now - 90 * DAY}`,
    audit_log: `select count(*) as n from audit_log where created_at < ${now - 400 * DAY}`,
    sessions: `select count(*) as n from api_keys where kind = 'session' and expires_at < ${now - 7 * DAY}`,
    otps: `select count(*) as n from otps where expires_at < ${now - DAY}`,
    stamp_replays: `select count(*) as n from stamp_replays where expires_at < ${now}`,
    rate_limits: `select count(*) as n from rate_limits where window_start < ${now - 2 * WINDOW_SECONDS * 1000}`,
    sponsorship_spend: `select count(*) as n from sponsorship_spend where day < '${new Date(now - 90 * DAY).toISOString().slice(0, 10)}'`,
    sponsorship_usage: `select count(*) as n from sponsorship_usage where day < '${new Date(now - 90 * DAY).toISOString().slice(0, 10)}'`,
  };
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(checks))
    out[name] = Number((await readOne<{ n: number | string }>(kind, url, q))?.n ?? 0);
  return out;
}

interface MinuteStats {
  minute: number;
  requests: number;
  errors: number;
  ops: Record<string, { n: number; p50Ms: number; p99Ms: number }>;
  tables: Record<string, { rows: number; bytes: number }>;
  totalMiB: number;
}

async function soak(t: ScaleTarget, kind: BenchDatabase) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(t.svc.baseUrl);
  const headers = { "content-type": "application/json", authorization: `Bearer ${t.svc.apiKey}` };
  const signupKey = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));
  const byName = new Map(SCALE_OPS.map((o) => [o.name, o]));
  const start = Date.now();
  const end = start + MINUTES * 60_000;
  let slot = 0;
  let signups = 0;
  let current: { lat: Map<string, number[]>; requests: number; errors: number } = {
    lat: new Map(),
    requests: 0,
    errors: 0,
  };
  const samples: string[] = [];
  const record = (op: string, ms: number, ok: boolean, why?: string) => {
    current.requests++;
    if (!ok) {
      current.errors++;
      if (samples.length < 10 && why) samples.push(`${op}: ${why.slice(0, 200)}`);
      return;
    }
    const list = current.lat.get(op) ?? [];
    list.push(ms);
    current.lat.set(op, list);
  };
  const one = async (op: string) => {
    if (op === "email_sign_in") {
      const r = await signInOnce(t, agent, anyUser(t).email);
      record(op, r.authMs + r.otpMs, true);
      return;
    }
    const req =
      op === "sign_up"
        ? {
            path: "/signer/v1/signup",
            body: Buffer.from(
              JSON.stringify({
                email: `soak${signups++}.${t.plan.seed}@scale.example.com`,
                targetPublicKey: signupKey,
              }),
            ),
          }
        : (() => {
            const o = byName.get(op);
            if (o?.kind !== "requests") throw new Error(`unknown op ${op}`);
            return o.build(t);
          })();
    const t0 = process.hrtime.bigint();
    const r = await sendRequest(agent, url, req, headers, 60_000);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const o = byName.get(op);
    const problem =
      r.status < 200 || r.status >= 300
        ? `${r.status} ${r.body}`
        : o?.kind === "requests"
          ? o.validate(r.body)
          : undefined;
    record(op, ms, problem === undefined, problem);
  };
  // Paced: request i is due at start + i / RATE; up to CONCURRENCY in flight (late ones go at once).
  const worker = async () => {
    for (;;) {
      const due = start + (slot++ * 1000) / RATE;
      if (due >= end) return;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const op = pickOp();
      await one(op).catch((e: unknown) => record(op, 0, false, e instanceof Error ? e.message : String(e)));
    }
  };
  const minutes: MinuteStats[] = [];
  const sampler = (async () => {
    for (let m = 1; m <= MINUTES; m++) {
      await sleep(Math.max(0, start + m * 60_000 - Date.now()));
      const done = current;
      current = { lat: new Map(), requests: 0, errors: 0 };
      const sizes = await storeSizes(kind, t.svc.dbUrl);
      const ops: MinuteStats["ops"] = {};
      for (const [op, l] of done.lat) {
        const s = Float64Array.from(l).sort();
        ops[op] = { n: s.length, p50Ms: round(percentile(s, 50), 1), p99Ms: round(percentile(s, 99), 1) };
      }
      minutes.push({
        minute: m,
        requests: done.requests,
        errors: done.errors,
        ops,
        tables: sizes.tables,
        totalMiB: round(sizes.totalBytes / 2 ** 20, 1),
      });
      const a = sizes.tables.activities;
      process.stdout.write(
        `  minute ${m}: ${done.requests} requests (${done.errors} errors), sign_payload p99 ${ops.sign_payload?.p99Ms ?? "-"} ms; activities ${a?.rows}, audit ${sizes.tables.audit_log?.rows}, sessions ${sizes.tables.api_keys?.rows}, stamps ${sizes.tables.stamp_replays?.rows}, rate rows ${sizes.tables.rate_limits?.rows}\n`,
      );
    }
  })();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await sampler;
  agent.destroy();
  return { minutes, errorSamples: samples };
}

async function runDatabase(kind: BenchDatabase) {
  process.stdout.write(`\n== ${kind} ==\n`);
  const retentionConfig = { rateLimits: { ...BENCH_RATE_LIMITS, windowSeconds: WINDOW_SECONDS } };
  const store = await seedStore({
    name: `${round(USERS / 1000, 0)}k`,
    kind,
    users: USERS,
    activities: ACTIVITIES,
    real: 100,
    spans: BACKLOG_SPANS,
  });
  try {
    const before = await storeSizes(kind, store.dbUrl);
    const pastBefore = await pastRetention(kind, store.dbUrl, Date.now());
    process.stdout.write(`  past retention before: ${JSON.stringify(pastBefore)}\n`);
    // The sweeper runs at start and every minute (retention.intervalSeconds).
    const t = await startTarget(store, {
      config: retentionConfig,
      env: { LATCHKEY_RETENTION_INTERVAL_SECONDS: "60" },
    });
    let run: Awaited<ReturnType<typeof soak>>;
    try {
      run = await soak(t, kind);
    } finally {
      await t.svc.stop();
    }
    const after = await storeSizes(kind, store.dbUrl);
    const pastAfter = await pastRetention(kind, store.dbUrl, Date.now());
    process.stdout.write(`  past retention after: ${JSON.stringify(pastAfter)}\n`);
    return {
      database: kind,
      seeding: store.times,
      before,
      after,
      pastRetentionBefore: pastBefore,
      pastRetentionAfter: pastAfter,
      ...run,
    };
  } finally {
    await dropStore(store);
  }
}

async function main() {
  const machine = machineInfo();
  process.stdout.write(`soak — ${describeMachine(machine)}\n`);
  process.stdout.write(
    `${MINUTES} min at ${RATE} requests/s (${MIX.map((m) => `${m.op} ${m.weight}`).join(", ")}), store of ${USERS} users and ${ACTIVITIES} activities with a backlog past retention; sweeps every 60 s\n`,
  );
  const databases = argv.some((a) => a.startsWith("--db=")) ? dbArg() : (["sqlite", "postgres"] as const);
  const results = [];
  for (const kind of databases) results.push(await runDatabase(kind));
  for (const r of results) {
    process.stdout.write(`\n${r.database}: tables before → after the soak\n`);
    process.stdout.write(
      `${table(
        Object.keys(r.after.tables).map((name) => ({
          table: name,
          rowsBefore: r.before.tables[name]?.rows,
          rowsAfter: r.after.tables[name]?.rows,
          mibBefore: round((r.before.tables[name]?.bytes ?? 0) / 2 ** 20, 1),
          mibAfter: round((r.after.tables[name]?.bytes ?? 0) / 2 ** 20, 1),
        })),
        ["table", "rowsBefore", "rowsAfter", "mibBefore", "mibAfter"],
      )}\n`,
    );
    const mib = (b: number | undefined) => round((b ?? 0) / 2 ** 20, 1);
    process.stdout.write(
      `  database: ${mib(r.before.totalBytes)} MiB before, ${mib(r.after.totalBytes)} MiB after` +
        (r.after.freeBytes !== undefined
          ? ` (${mib(r.after.freeBytes)} MiB of it free pages for new rows)`
          : "") +
        `; rows past retention before ${JSON.stringify(r.pastRetentionBefore)}, after ${JSON.stringify(r.pastRetentionAfter)}\n`,
    );
  }
  finishBench(
    "soak.json",
    {
      date: new Date().toISOString(),
      machine,
      settings: {
        minutes: MINUTES,
        rate: RATE,
        users: USERS,
        activities: ACTIVITIES,
        windowSeconds: WINDOW_SECONDS,
        sweepEverySeconds: 60,
        mix: MIX,
        backlogSpans: BACKLOG_SPANS,
      },
      results,
    },
    undefined,
  );
}

runBench(main);
