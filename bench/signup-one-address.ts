/**
 * Sign-ups from one address: 64 connections POST /signer/v1/signup with unique emails, every request from
 * 127.0.0.1, so each one counts against the same per-network sign-up and mail limits (behind a NAT or a
 * corporate proxy, production sees the same). Before the limits were spread over shard rows
 * (packages/server/src/limits/rateLimit.ts), PostgreSQL backends queued on that one row
 * (`Lock:transactionid`) and whole seconds fell to a fraction of the median.
 *
 * Reports the answers of each whole second of a sustained run, the slowest second against the median
 * (goal: none below half of it), and how often backends were seen waiting on a row lock (pg_stat_activity,
 * sampled every 100 ms).
 *
 *   npx tsx bench/signup-one-address.ts [-- --db=postgres] [-- --scale=0.5] [-- --workers=1]
 */

import pg from "pg";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../packages/protocol/src/index";
import { dbArg, scaleArg, workersArg } from "./lib/args";
import type { BenchDatabase } from "./lib/databases";
import { type LoadResult, runLoad } from "./lib/load";
import { describeMachine, finishBench, machineInfo, printErrors, runBench, runRecord } from "./lib/report";
import { withService } from "./lib/service";

const PATH = "/signer/v1/signup";
const CONNECTIONS = 64;
const SECONDS = 60;
const WARMUP = 200;
const MAX_RPS = 3_000;
const scale = scaleArg();
const targetPublicKey = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));

const SIGNUP_RE = /"orgId":"[^"]+".*"otpId":"[^"]+"/;
const validate = (_status: number, body: string) => (SIGNUP_RE.test(body) ? undefined : "no orgId/otpId");

const requests = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    path: PATH,
    body: Buffer.from(JSON.stringify({ email: `${prefix}-${i}@bench.test`, targetPublicKey })),
  }));

/** Samples PostgreSQL's backends of the database: how many wait on a lock, by wait event. */
function lockSampler(dbUrl: string) {
  const client = new pg.Client({ connectionString: dbUrl });
  const waits: Record<string, number> = {};
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ ev: string; n: number }>(
        `select wait_event_type || ':' || wait_event as ev, count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' group by 1`,
      );
      samples++;
      for (const r of rows) waits[r.ev] = (waits[r.ev] ?? 0) + r.n;
      await new Promise((r) => setTimeout(r, 100));
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { samples, waits };
    },
  };
}

interface Outcome {
  database: BenchDatabase;
  workers: number;
  run: LoadResult;
  /** Slowest second / median second (goal ≥ 0.5). */
  minToMedian: number;
  lockWaits?: { samples: number; waits: Record<string, number> };
}

async function main() {
  const machine = machineInfo();
  const databases = process.argv.some((a) => a.startsWith("--db=")) ? dbArg() : (["postgres"] as const);
  const workersList = process.argv.some((a) => a.startsWith("--workers=")) ? workersArg() : [1];
  process.stdout.write(
    `sign-ups from one address, ${CONNECTIONS} connections (${databases.join(", ")}) — ${describeMachine(machine)}\n`,
  );
  const outcomes: Outcome[] = [];
  for (const database of databases)
    for (const workers of workersList) {
      const outcome = await withService(
        { workers, database, startTimeoutMs: 240_000 },
        async (svc): Promise<Outcome> => {
          const runId = Date.now().toString(36);
          process.stdout.write(`\n${database}, ${workers} process(es): ${SECONDS * scale} s sustained… `);
          const sampler = database === "postgres" ? lockSampler(svc.dbUrl) : undefined;
          const durationMs = SECONDS * 1000 * scale;
          const run = await runLoad({
            baseUrl: svc.baseUrl,
            warmup: requests(`warm-${runId}`, WARMUP),
            requests: requests(`one-${runId}`, Math.round(MAX_RPS * SECONDS * scale)),
            connections: CONNECTIONS,
            headers: { authorization: `Bearer ${svc.apiKey}` },
            validate,
            servicePid: svc.pid,
            durationMs,
          });
          const lockWaits = await sampler?.stop();
          const s = run.perSecond;
          const minToMedian = s && s.median > 0 ? Math.round((s.min / s.median) * 100) / 100 : 0;
          process.stdout.write(
            `${run.requests} sign-ups, ${run.rps}/s; per second min ${s?.min}, median ${s?.median}, max ${s?.max} (min/median ${minToMedian}: ${minToMedian >= 0.5 ? "MET" : "MISSED"} ≥ 0.5); p99 ${run.p99Ms} ms\n`,
          );
          if (s) process.stdout.write(`seconds: ${s.seconds.join(" ")}\n`);
          if (lockWaits)
            process.stdout.write(
              `backends waiting on locks, summed over ${lockWaits.samples} samples: ${JSON.stringify(lockWaits.waits)}\n`,
            );
          printErrors(run);
          return { database, workers, run, minToMedian, ...(lockWaits ? { lockWaits } : {}) };
        },
      );
      outcomes.push(outcome);
    }
  finishBench(
    "signup-one-address.json",
    {
      date: new Date().toISOString(),
      machine,
      connections: CONNECTIONS,
      seconds: SECONDS * scale,
      goal: "no second below half of the run's median",
      runs: outcomes.map(({ run, ...rest }) => ({ ...rest, run: runRecord(run) })),
    },
    undefined,
  );
}

runBench(main);
