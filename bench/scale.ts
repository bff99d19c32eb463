/**
 * Latency as the data grows (issue 37 item 1, issue 36 item 5). For each database, two stores: a small
 * one (1,000 users) and a large one (1,000,000 users with wallets, 10,000,000 activities, their sessions,
 * codes, security events and sponsorship spend), each with a few hundred users signed up through the
 * service (they sign; their keys are opened) and the rest bulk-inserted in the service's row shapes
 * (lib/scaleSeed.ts). Both services then run side by side and each operation is measured on both in
 * alternating rounds (so that a busy machine weighs on both sizes alike): email sign-in, sign-payload, a
 * sponsored operation's policy check, lookup by email, and the admin API's user search by email and by
 * address and its users list (first page, and from a random position). Reports p50 and p99 at each
 * size, their ratios (goal: ≤ 1.2 at p50, ≤ 1.5 at p99), the database's bytes per user and per activity,
 * and the seeding time; writes bench/results/scale.json.
 *
 *   npm run bench:scale [-- --db=sqlite,postgres] [-- --users=1000000 --activities=10000000]
 *     [-- --small=1000] [-- --real=300] [-- --requests=3000] [-- --signins=600] [-- --rounds=15]
 *     [-- --connections=4] [-- --ops=sign_payload,admin_users_list] [-- --keep] [-- --no-prewarm]
 *   nice -n 19 npm run bench:scale -- --seed-only      # make and keep the stores (prints --reuse=…)
 *   npm run bench:scale -- --reuse=<small store.json>,<large store.json>[,…] [-- --merge]
 *
 * The stores are read into the page cache before measuring (as a server's working set is after hours of
 * traffic; --no-prewarm skips it). `--merge` keeps the other database's results in scale.json. Besides
 * the pooled ratios (all rounds of each size together), each operation has `pairedRatioP50/P99`: the
 * median over the pairs of back-to-back rounds of large/small, steadier on a shared machine.
 *
 * Develop with small sizes (e.g. --users=10000 --activities=100000); the full size takes some 20 minutes
 * per database to seed here and about 30 GB of disk for both (dropped at the end unless kept).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dbArg } from "./lib/args";
import { liveDatabases } from "./lib/databases";
import { percentile } from "./lib/load";
import { RESULTS_DIR } from "./lib/paths";
import { describeMachine, finishBench, machineInfo, round, runBench, table } from "./lib/report";
import { type Batch, runBatch, SCALE_OPS, type ScaleOp, type ScaleTarget } from "./lib/scaleOps";
import { STEADY_SPANS } from "./lib/scaleSeed";
import { prewarm, type StoreSizes, storeSizes } from "./lib/scaleStore";
import { dropStore, loadStore, type SeededStore, saveStore, seedStore, startTarget } from "./lib/scaleTarget";

const argv = process.argv.slice(2);
function numArg(name: string, fallback: number): number {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  if (!a) return fallback;
  const n = Number(a.slice(name.length + 3).replace(/_/g, ""));
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number`);
  return n;
}
const USERS = numArg("users", 1_000_000);
const ACTIVITIES = numArg("activities", 10_000_000);
const SMALL = numArg("small", 1_000);
const REAL = numArg("real", 300);
const REQUESTS = numArg("requests", 3_000);
const SIGNINS = numArg("signins", 600);
const ROUNDS = Math.max(1, numArg("rounds", 15));
const CONNECTIONS = Math.max(1, numArg("connections", 4));
/** `--seed-only`: make and keep the stores, measure nothing (then `--reuse` them, e.g. without `nice`). */
const SEED_ONLY = argv.includes("--seed-only");
/** `--no-prewarm`: measure without reading the stores into the page cache first. */
const PREWARM = !argv.includes("--no-prewarm");
/** `--merge`: keep the other databases' results already in bench/results/scale.json. */
const MERGE = argv.includes("--merge");
const KEEP = argv.includes("--keep") || SEED_ONLY;
/** `--reuse=<store.json>,…`: measure stores a `--keep` run left (two per database: small, large). */
const REUSE =
  argv
    .find((a) => a.startsWith("--reuse="))
    ?.slice(8)
    .split(",")
    .filter(Boolean) ?? [];
const onlyOps = argv
  .find((a) => a.startsWith("--ops="))
  ?.slice(6)
  .split(",");
const OPS = SCALE_OPS.filter((o) => !onlyOps || onlyOps.includes(o.name));
const GOAL = { p50: 1.2, p99: 1.5 };

const label = (n: number) =>
  n >= 1_000_000 && n % 1_000_000 === 0
    ? `${n / 1_000_000}M`
    : n >= 1_000 && n % 1_000 === 0
      ? `${n / 1_000}k`
      : String(n);

interface OpStats {
  n: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  parts?: Record<string, { p50Ms: number; p99Ms: number }>;
}

function stats(batches: Batch[]): OpStats {
  const all = Float64Array.from(batches.flatMap((b) => b.latencies)).sort();
  const parts: Record<string, number[]> = {};
  for (const b of batches)
    for (const [k, v] of Object.entries(b.parts ?? {})) {
      parts[k] = [...(parts[k] ?? []), ...v];
    }
  return {
    n: all.length,
    p50Ms: round(percentile(all, 50), 2),
    p99Ms: round(percentile(all, 99), 2),
    errors: batches.reduce((a, b) => a + b.errors, 0),
    ...(Object.keys(parts).length
      ? {
          parts: Object.fromEntries(
            Object.entries(parts).map(([k, v]) => {
              const s = Float64Array.from(v).sort();
              return [k, { p50Ms: round(percentile(s, 50), 2), p99Ms: round(percentile(s, 99), 2) }];
            }),
          ),
        }
      : {}),
  };
}

/** `op` on both targets in alternating rounds, after a warm-up round on each. */
async function measure(op: ScaleOp, small: ScaleTarget, large: ScaleTarget) {
  const total = op.kind === "flow" ? SIGNINS : REQUESTS;
  const perRound = Math.max(1, Math.round(total / ROUNDS));
  const batches = new Map<ScaleTarget, Batch[]>([
    [small, []],
    [large, []],
  ]);
  for (const t of [small, large])
    await runBatch(op, t, Math.max(CONNECTIONS * 4, Math.round(perRound / 2)), CONNECTIONS);
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of r % 2 === 0 ? [small, large] : [large, small]) {
      const b = await runBatch(op, t, perRound, CONNECTIONS);
      batches.get(t)?.push(b);
      for (const s of b.samples.slice(0, 2)) process.stdout.write(`    ${t.name} error: ${s}\n`);
    }
  }
  const smallBatches = batches.get(small) ?? [];
  const largeBatches = batches.get(large) ?? [];
  const s = stats(smallBatches);
  const l = stats(largeBatches);
  const ratioP50 = round(l.p50Ms / s.p50Ms, 2);
  const ratioP99 = round(l.p99Ms / s.p99Ms, 2);
  // The same ratios round by round: each pair of rounds ran back to back, on the machine as it was then.
  const paired = (p: number) => {
    const at = (b: Batch | undefined) => percentile(Float64Array.from(b?.latencies ?? []).sort(), p);
    return round(median(smallBatches.map((sb, i) => at(largeBatches[i]) / at(sb))), 2);
  };
  const pairedRatioP50 = paired(50);
  const pairedRatioP99 = paired(99);
  const clean = s.errors === 0 && l.errors === 0;
  return {
    name: op.name,
    what: op.what,
    small: s,
    large: l,
    ratioP50,
    ratioP99,
    pairedRatioP50,
    pairedRatioP99,
    met: ratioP50 <= GOAL.p50 && ratioP99 <= GOAL.p99 && clean,
    metPaired: pairedRatioP50 <= GOAL.p50 && pairedRatioP99 <= GOAL.p99 && clean,
  };
}

function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Bytes per user (every table but activities) and per activity, from the large store's sizes. */
function perRow(sizes: StoreSizes, users: number) {
  const t = sizes.tables;
  const activities = t.activities ?? { rows: 0, bytes: 0 };
  const userBytes = Object.entries(t)
    .filter(([name]) => name !== "activities")
    .reduce((a, [, v]) => a + v.bytes, 0);
  return {
    bytesPerUser: round(userBytes / Math.max(1, users), 0),
    bytesPerActivity: round(activities.bytes / Math.max(1, activities.rows), 0),
    totalGiB: round(sizes.totalBytes / 2 ** 30, 2),
  };
}

async function runDatabase(kind: "sqlite" | "postgres") {
  process.stdout.write(`\n== ${kind} ==\n`);
  const stores: SeededStore[] = [];
  const targets: ScaleTarget[] = [];
  try {
    const reuse = REUSE.filter((f) => f.includes(`latchkey-scale-${kind}-`));
    if (reuse.length === 2) {
      stores.push(...reuse.map(loadStore).sort((a, b) => a.users - b.users));
      process.stdout.write(`Reusing ${stores.map((s) => `${s.name} (${s.dbUrl})`).join(" and ")}\n`);
    } else {
      const smallActivities = Math.round((ACTIVITIES * SMALL) / USERS);
      for (const [users, activities] of [
        [SMALL, smallActivities],
        [USERS, ACTIVITIES],
      ] as const) {
        process.stdout.write(`Seeding ${label(users)} users, ${label(activities)} activities…\n`);
        const store = await seedStore({
          name: label(users),
          kind,
          users,
          activities,
          real: Math.min(REAL, users),
          spans: STEADY_SPANS,
        });
        stores.push(store);
        // Until measured: a crash keeps nothing. With --keep, the store outlives the run.
        if (KEEP) saveStore(store);
      }
    }
    if (SEED_ONLY) return undefined;
    const sizes = [];
    for (const s of stores) {
      const t0 = performance.now();
      const measured = await storeSizes(kind, s.dbUrl);
      sizes.push({ store: s.name, ...perRow(measured, s.users), tables: measured.tables });
      process.stdout.write(`  ${s.name}: sizes read in ${round((performance.now() - t0) / 1000, 1)} s\n`);
    }
    if (PREWARM)
      for (const s of stores) {
        const t0 = performance.now();
        await prewarm(kind, s.dbUrl);
        process.stdout.write(
          `  ${s.name}: read into the page cache in ${round((performance.now() - t0) / 1000, 1)} s\n`,
        );
      }
    for (const s of stores) targets.push(await startTarget(s));
    const [small, large] = targets as [ScaleTarget, ScaleTarget];
    const ops = [];
    for (const op of OPS) {
      process.stdout.write(`  ${op.name}… `);
      const r = await measure(op, small, large);
      ops.push(r);
      process.stdout.write(
        `p50 ${r.small.p50Ms} → ${r.large.p50Ms} ms (×${r.ratioP50}), p99 ${r.small.p99Ms} → ${r.large.p99Ms} ms (×${r.ratioP99})${r.met ? "" : "  MISSED"}\n`,
      );
    }
    return {
      database: kind,
      sizes: { small: label(SMALL), large: label(USERS) },
      seeding: Object.fromEntries(
        stores.map((s) => [s.name, { users: s.users, activities: s.activities, ...s.times }]),
      ),
      storage: sizes,
      ops,
    };
  } finally {
    for (const t of targets) await t.svc.stop();
    if (!KEEP) for (const s of stores) await dropStore(s);
    else
      for (const s of stores) {
        // Not dropped on exit either.
        if (s.pgName) liveDatabases.delete(s.pgName);
        process.stdout.write(`Kept ${s.name}: ${s.dbUrl}; --reuse=${join(s.dir, "store.json")}\n`);
      }
  }
}

async function main() {
  const machine = machineInfo();
  process.stdout.write(`scale benchmark — ${describeMachine(machine)}\n`);
  process.stdout.write(
    `${label(SMALL)} vs ${label(USERS)} users (${label(ACTIVITIES)} activities), ${REAL} real users each, ` +
      `${REQUESTS} requests per operation and size (${SIGNINS} sign-ins) in ${ROUNDS} alternating rounds, ` +
      `${CONNECTIONS} connections\n`,
  );
  const databases = argv.some((a) => a.startsWith("--db=")) ? dbArg() : (["sqlite", "postgres"] as const);
  const results = [];
  for (const kind of databases) {
    const r = await runDatabase(kind);
    if (r) results.push(r);
  }
  if (SEED_ONLY) return;
  for (const r of results) {
    process.stdout.write(`\n${r.database}: ${r.sizes.small} vs ${r.sizes.large} users\n`);
    process.stdout.write(
      `${table(
        r.ops.map((o) => ({
          operation: o.name,
          p50Small: o.small.p50Ms,
          p50Large: o.large.p50Ms,
          ratioP50: o.ratioP50,
          p99Small: o.small.p99Ms,
          p99Large: o.large.p99Ms,
          ratioP99: o.ratioP99,
          paired: `${o.pairedRatioP50} / ${o.pairedRatioP99}`,
          errors: o.small.errors + o.large.errors,
          goal: `${o.met ? "met" : "MISSED"} / ${o.metPaired ? "met" : "MISSED"}`,
        })),
        [
          "operation",
          "p50Small",
          "p50Large",
          "ratioP50",
          "p99Small",
          "p99Large",
          "ratioP99",
          "paired",
          "errors",
          "goal",
        ],
      )}\n`,
    );
    for (const s of r.storage)
      process.stdout.write(
        `  ${s.store}: ${s.bytesPerUser} B per user, ${s.bytesPerActivity} B per activity, ${s.totalGiB} GiB\n`,
      );
    for (const [name, t] of Object.entries(r.seeding))
      process.stdout.write(
        `  seeding ${name}: ${t.realSignupsSeconds} s real sign-ups, ${t.bulkSeconds} s for ${t.rows} rows (${t.rowsPerSecond}/s), settle ${t.settleSeconds} s\n`,
      );
  }
  finishBench(
    "scale.json",
    {
      date: new Date().toISOString(),
      machine,
      goal: { ratioP50: GOAL.p50, ratioP99: GOAL.p99 },
      settings: {
        users: USERS,
        activities: ACTIVITIES,
        small: SMALL,
        real: REAL,
        requests: REQUESTS,
        signins: SIGNINS,
        rounds: ROUNDS,
        connections: CONNECTIONS,
      },
      results: MERGE ? [...earlierResults(results.map((r) => r.database)), ...results] : results,
    },
    undefined,
  );
}

runBench(main);

/** With --merge: the results of other databases from the last bench/results/scale.json. */
function earlierResults(measured: string[]): { database: string }[] {
  try {
    const old = JSON.parse(readFileSync(join(RESULTS_DIR, "scale.json"), "utf8")) as {
      results?: { database: string }[];
    };
    return (old.results ?? []).filter((r) => !measured.includes(r.database));
  } catch {
    return [];
  }
}
