/**
 * New users per second: POST /signer/v1/signup with unique emails on SQLite and/or PostgreSQL (--db).
 * Each signup creates the user, a fresh BIP-39 wallet (PBKDF2 seed, BIP-32 secp256k1 + SLIP-10 ed25519
 * accounts, sealed), an OTP row and a mail (dev mailbox, or the bench's SMTP catcher with several
 * processes), all in one transaction.
 *
 * Sustained: at 16 and 64 connections the load runs for 60 s (× --scale) and counts what was answered,
 * second by second, so no buffer or cache flatters the figure; the target (≥ 1,000 new users with wallets
 * per second on this 2-core machine, both processes, SQLite) is checked against the run's whole-run rate
 * and its median second. One connection measures the latency of a lone sign-up.
 *
 * Spike (the wallet reserve, `walletReserve`): a service that kept N wallets derived while idle takes a
 * burst of N sign-ups at 64 connections, each one's wallet out of the reserve. This is what a launch-day
 * spike gets until the reserve runs out; it is reported beside the sustained figure, never instead of it
 * (the sustained runs keep no reserve). It also reports how fast an idle service fills the reserve.
 *
 * Split custody (issue 44): with one service process, the same service also serves a split-custody app
 * (bench/lib/split.ts). A split user's sign-up is two requests to the service: the sign-up (no wallet)
 * and create_split_wallet (the key holder's wallet: two HPKE opens, the Shamir combine, the service's own
 * derivation of the accounts from the entropy, the sealed share). Each is measured at 1 and 16
 * connections, in rounds interleaved with service sign-ups of the same size (the machine's other load
 * drifts; a service figure taken minutes earlier compared that drift); the split sign-up's rate is
 * 1 / (1/rate₁ + 1/rate₂) and its p50 the sum, each round's ratio to the service sign-up's taken and the
 * median of the rounds reported (target: within 1.5×). `--split-only` measures that alone.
 *
 *   npm run bench:signup [-- --scale=0.1] [-- --db=sqlite,postgres] [-- --spike=20000] [-- --spike-only] [-- --split-only] [-- --cpu-prof[=dir]]
 */

import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../packages/protocol/src/index";
import { openDatabase } from "../packages/server/src/db/index";
import { cpuProfArg, dbArg, scaleArg, workersArg } from "./lib/args";
import type { BenchDatabase } from "./lib/databases";
import { type LoadResult, type PreparedRequest, runLoad } from "./lib/load";
import {
  describeMachine,
  finishBench,
  machineInfo,
  printErrors,
  runBench,
  runRecord,
  table,
} from "./lib/report";
import { type ServiceHandle, withService } from "./lib/service";
import { createSplitSession, createWalletRequest, SPLIT_API_KEY, SPLIT_APP, shareKeyOf } from "./lib/split";

/** Split custody's target: a split sign-up (sign-up + create_split_wallet) within 1.5× of a service one. */
const TARGET_SPLIT_RATIO = 1.5;

interface SplitRound {
  /** The service app's sign-up (its wallet derived in the same request), measured just before the split pair. */
  service: LoadResult;
  signup: LoadResult;
  createWallet: LoadResult;
  /** 1 / (1/signup.rps + 1/createWallet.rps): split users made ready per second by the two requests. */
  rps: number;
  /** signup.p50 + createWallet.p50. */
  p50Ms: number;
  rateRatio: number;
  p50Ratio: number;
}

interface SplitSignup {
  connections: number;
  rounds: SplitRound[];
  /** The medians of the rounds' figures: each round's ratio compares loads run seconds apart. */
  rps: number;
  p50Ms: number;
  serviceRps: number;
  serviceP50Ms: number;
  rateRatio: number;
  p50Ratio: number;
}

/** Interleaved rounds: the machine's other load drifts, and a ratio of runs minutes apart measured the drift. */
const SPLIT_ROUNDS = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * A split sign-up against a service one, side by side: at 1 and 16 connections, SPLIT_ROUNDS rounds of
 * (service sign-ups, split sign-ups, split wallets made), each round's ratio taken, the median reported.
 */
async function measureSplitSignup(svc: ServiceHandle): Promise<SplitSignup[]> {
  const runId = Date.now().toString(36);
  const splitHeaders = { authorization: `Bearer ${SPLIT_API_KEY}` };
  const serviceHeaders = { authorization: `Bearer ${svc.apiKey}` };
  const shareKey = await shareKeyOf(svc);
  const out: SplitSignup[] = [];
  for (const connections of [1, 16]) {
    const n = Math.max(40, Math.round((connections === 1 ? 100 : 400) * scale));
    const m = Math.max(30, Math.round((connections === 1 ? 60 : 150) * scale));
    const warm = Math.min(20, Math.round(m / 5));
    // Fresh split users signed in (no wallet), each one's wallet request made as its key holder makes it:
    // the key holder's work is the user's device's, done before the timed runs.
    process.stdout.write(
      `\nsplit, ${connections} connection(s): ${m * SPLIT_ROUNDS + warm} users signing in… `,
    );
    const wallets: PreparedRequest[] = [];
    const total = m * SPLIT_ROUNDS + warm;
    for (let i = 0; i < total; i += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, total - i) }, async (_, j) => {
          const session = await createSplitSession(
            svc,
            `split-wallet-${runId}-c${connections}-${i + j}@bench.test`,
          );
          return (await createWalletRequest(session, shareKey)).request;
        }),
      );
      wallets.push(...batch);
    }
    process.stdout.write("done\n");
    const walletValidate = (status: number, body: string) =>
      status === 200 && body.includes('"walletId"') ? undefined : `status ${status}: ${body.slice(0, 120)}`;
    const signupValidate = (status: number) => (status === 200 ? undefined : `status ${status}`);
    const rounds: SplitRound[] = [];
    for (let r = 0; r < SPLIT_ROUNDS; r++) {
      const tag = `${runId}-c${connections}-r${r}`;
      const service = await runLoad({
        baseUrl: svc.baseUrl,
        ...(r === 0 ? { warmup: buildRequests(`svc-warm-${tag}`, WARMUP) } : {}),
        requests: buildRequests(`svc-${tag}`, n),
        connections,
        headers: serviceHeaders,
        validate,
        servicePid: svc.pid,
      });
      const signup = await runLoad({
        baseUrl: svc.baseUrl,
        ...(r === 0 ? { warmup: buildRequests(`split-warm-${tag}`, WARMUP) } : {}),
        requests: buildRequests(`split-${tag}`, n),
        connections,
        headers: splitHeaders,
        validate: signupValidate,
        servicePid: svc.pid,
      });
      const createWallet = await runLoad({
        baseUrl: svc.baseUrl,
        ...(r === 0 ? { warmup: wallets.slice(0, warm) } : {}),
        requests: wallets.slice(warm + r * m, warm + (r + 1) * m),
        connections,
        headers: splitHeaders,
        validate: walletValidate,
        servicePid: svc.pid,
      });
      for (const run of [service, signup, createWallet]) printErrors(run);
      const rps = 1 / (1 / signup.rps + 1 / createWallet.rps);
      const p50Ms = signup.p50Ms + createWallet.p50Ms;
      const round = {
        service,
        signup,
        createWallet,
        rps: Math.round(rps * 10) / 10,
        p50Ms: round2(p50Ms),
        rateRatio: round2(service.rps / rps),
        p50Ratio: round2(p50Ms / service.p50Ms),
      };
      rounds.push(round);
      process.stdout.write(
        `  round ${r + 1}: service ${service.rps}/s p50 ${service.p50Ms} ms (CPU ${service.serviceCpuUsPerRequest} µs); split sign-up ${signup.rps}/s p50 ${signup.p50Ms} ms (CPU ${signup.serviceCpuUsPerRequest} µs) + wallet ${createWallet.rps}/s p50 ${createWallet.p50Ms} ms (CPU ${createWallet.serviceCpuUsPerRequest} µs): rate ×${round.rateRatio}, p50 ×${round.p50Ratio}\n`,
      );
    }
    out.push({
      connections,
      rounds,
      rps: median(rounds.map((x) => x.rps)),
      p50Ms: median(rounds.map((x) => x.p50Ms)),
      serviceRps: median(rounds.map((x) => x.service.rps)),
      serviceP50Ms: median(rounds.map((x) => x.service.p50Ms)),
      rateRatio: median(rounds.map((x) => x.rateRatio)),
      p50Ratio: median(rounds.map((x) => x.p50Ratio)),
    });
  }
  return out;
}

const PATH = "/signer/v1/signup";
const WARMUP = 100;
const TARGET_RPS = 1_000;
const SUSTAINED_SECONDS = 60;
// More bodies than any run can use: a sustained run ends on time, not on running out.
const MAX_RPS = 3_000;
const scale = scaleArg();
const RUNS: { connections: number; requests: number; durationMs?: number }[] = [
  { connections: 1, requests: Math.round(500 * scale) },
  ...[16, 64].map((connections) => ({
    connections,
    requests: Math.round(MAX_RPS * SUSTAINED_SECONDS * scale),
    durationMs: SUSTAINED_SECONDS * 1000 * scale,
  })),
];

// OTP mode never uses the target key at signup (it is checked for shape only), so one key serves all.
const targetPublicKey = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));

function buildRequests(prefix: string, n: number): PreparedRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    path: PATH,
    body: Buffer.from(JSON.stringify({ email: `${prefix}-${i}@bench.test`, targetPublicKey })),
  }));
}

/** `--spike=N`: the reserve's size and the burst's (default 20,000 × --scale; 0 skips the spike). */
function spikeArg(argv = process.argv.slice(2)): number {
  const a = argv.find((x) => x.startsWith("--spike="));
  const n = a ? Number(a.slice("--spike=".length)) : Math.round(20_000 * scale);
  if (!Number.isInteger(n) || n < 0) throw new Error("--spike takes a whole number of sign-ups");
  return n;
}

interface SpikeResult {
  database: BenchDatabase;
  workers: number;
  reserve: number;
  /** Seconds an idle service took to derive the reserve from empty, and the rate that is. */
  fillSeconds: number;
  fillPerSecond: number;
  /** Sign-ups in the burst whose wallet came out of the reserve. */
  fromReserve: number;
  run: LoadResult;
}

/** A service keeping `reserve` wallets: wait until they are derived, then a burst of as many sign-ups. */
async function spike(database: BenchDatabase, workers: number, reserve: number, cpuProfDir?: string) {
  return withService(
    { workers, database, config: { walletReserve: reserve }, ...(cpuProfDir ? { cpuProfDir } : {}) },
    async (svc): Promise<SpikeResult> => {
      const { db, close } = openDatabase(svc.dbUrl, { poolSize: 1 });
      try {
        const stock = async () =>
          Number(
            (
              await db
                .selectFrom("wallet_reserve")
                .select((eb) => eb.fn.countAll<number | string>().as("n"))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const fill = async () => {
          const t0 = performance.now();
          while ((await stock()) < reserve) await new Promise((r) => setTimeout(r, 250));
          return (performance.now() - t0) / 1000;
        };
        const runId = Date.now().toString(36);
        const headers = { authorization: `Bearer ${svc.apiKey}` };
        process.stdout.write(`
spike, ${database}, ${workers} process(es): filling a reserve of ${reserve}… `);
        const fillSeconds = await fill();
        const fillPerSecond = Math.round(reserve / fillSeconds);
        process.stdout.write(`${fillSeconds.toFixed(1)} s (${fillPerSecond} wallets/s while idle)\n`);
        // The warm-up takes wallets too: wait for the reserve to be whole again before the burst.
        await runLoad({
          baseUrl: svc.baseUrl,
          requests: buildRequests(`spike-warm-${runId}`, WARMUP),
          connections: 16,
          headers,
          validate,
        });
        await fill();
        const before = await stock();
        const run = await runLoad({
          baseUrl: svc.baseUrl,
          requests: buildRequests(`spike-${runId}`, reserve),
          connections: 64,
          headers,
          validate,
          servicePid: svc.pid,
        });
        const fromReserve = Math.min(run.requests - run.errors, before - (await stock()));
        process.stdout.write(
          `burst of ${run.requests} sign-ups at 64 connections: ${run.rps}/s, p99 ${run.p99Ms} ms, ${fromReserve} wallets from the reserve; service CPU ${run.serviceCpuUsPerRequest} µs/signup\n`,
        );
        printErrors(run);
        return { database, workers, reserve, fillSeconds, fillPerSecond, fromReserve, run };
      } finally {
        await close();
      }
    },
  );
}

const SIGNUP_RE = /"orgId":"[^"]+".*"address":"0x[0-9a-fA-F]{40}".*"otpId":"[^"]+"/;
const validate = (_status: number, body: string) =>
  SIGNUP_RE.test(body) ? undefined : "no orgId/address/otpId";

async function main() {
  const machine = machineInfo();
  const databases = dbArg();
  const workersList = workersArg();
  process.stdout.write(`signup benchmark (${databases.join(", ")}) — ${describeMachine(machine)}\n`);
  process.stdout.write("Note: the load generator shares this machine's CPUs with the service.\n");

  const cpuProfDir = cpuProfArg();
  const services: { database: BenchDatabase; workers: number; runs: LoadResult[]; split?: SplitSignup[] }[] =
    [];
  // --spike-only: the reserve's burst alone (e.g. to profile it); no sustained runs.
  const splitOnly = process.argv.includes("--split-only");
  const sustainedRuns = process.argv.includes("--spike-only") ? [] : splitOnly ? [1] : workersList;
  for (const database of databases)
    for (const workers of sustainedRuns) {
      process.stdout.write(`\n== ${database}: ${workers} service process(es) ==\n`);
      // One process: the split-custody app beside the dev app, measured in the same service.
      const withSplit = workers === 1;
      let split: SplitSignup[] | undefined;
      const runs = await withService(
        { cpuProfDir, workers, database, ...(withSplit ? { config: { apps: [SPLIT_APP] } } : {}) },
        async (svc) => {
          process.stdout.write(`Service pid ${svc.pid} on ${svc.baseUrl} (${svc.database})\n`);
          const runId = Date.now().toString(36);
          const headers = { authorization: `Bearer ${svc.apiKey}` };
          const results: LoadResult[] = [];
          for (const run of splitOnly ? [] : RUNS) {
            process.stdout.write(
              `\n${run.connections} connection(s): ${run.durationMs ? `${run.durationMs / 1000} s sustained` : `${run.requests} signups`} (after ${WARMUP} warm-up signups)… `,
            );
            const r = await runLoad({
              baseUrl: svc.baseUrl,
              warmup: buildRequests(`warm-${runId}-c${run.connections}`, WARMUP),
              requests: buildRequests(`signup-${runId}-c${run.connections}`, run.requests),
              connections: run.connections,
              headers,
              validate,
              servicePid: svc.pid,
              ...(run.durationMs ? { durationMs: run.durationMs } : {}),
            });
            if (run.durationMs && r.requests >= run.requests)
              throw new Error("The sustained run ran out of prepared sign-ups: raise MAX_RPS");
            const seconds = r.perSecond
              ? `; per second min ${r.perSecond.min}, median ${r.perSecond.median}, max ${r.perSecond.max}`
              : "";
            process.stdout.write(
              `${r.requests} in ${Math.round(r.durationMs / 100) / 10} s: ${r.rps} signups/s${seconds}, p99 ${r.p99Ms} ms; service CPU ${r.serviceCpuUsPerRequest} µs/signup (${r.serviceCores} cores), event loop ${r.eventLoopCpuUsPerRequest} µs; load generator ${r.loadGeneratorCores} cores\n`,
            );
            printErrors(r);
            results.push(r);
          }
          if (withSplit) split = await measureSplitSignup(svc);
          return results;
        },
      );
      services.push({ database, workers, runs, ...(split ? { split } : {}) });
      for (const sp of split ?? []) {
        process.stdout.write(
          `${database}: split sign-up (sign-up + create_split_wallet) at ${sp.connections} connection(s), median of ${sp.rounds.length} interleaved rounds: ${sp.rps}/s, p50 ${sp.p50Ms} ms; service ${sp.serviceRps}/s, p50 ${sp.serviceP50Ms} ms: rate ×${sp.rateRatio}, p50 ×${sp.p50Ratio} (target ≤ ×${TARGET_SPLIT_RATIO}: ${Math.max(sp.rateRatio, sp.p50Ratio) <= TARGET_SPLIT_RATIO ? "MET" : "MISSED"})\n`,
        );
      }
      process.stdout.write(
        `\n${database}, ${workers} service process(es):\n${table(
          runs.map((r) => ({
            ...r,
            medianSecond: r.perSecond?.median ?? "",
            minSecond: r.perSecond?.min ?? "",
          })),
          [
            "connections",
            "requests",
            "rps",
            "medianSecond",
            "minSecond",
            "p50Ms",
            "p99Ms",
            "errors",
            "serviceCpuUsPerRequest",
            "eventLoopCpuUsPerRequest",
          ],
        )}\n\n`,
      );
    }
  const reserve = splitOnly ? 0 : spikeArg();
  const spikes: SpikeResult[] = [];
  if (reserve > 0)
    for (const database of databases)
      for (const workers of workersList) spikes.push(await spike(database, workers, reserve, cpuProfDir));

  for (const database of databases) {
    const sustained = services
      .filter((s) => s.database === database)
      .flatMap((s) => s.runs.filter((r) => r.perSecond).map((r) => ({ workers: s.workers, r })));
    const best = sustained.reduce<(typeof sustained)[number] | undefined>(
      (a, b) => (!a || b.r.rps > a.r.rps ? b : a),
      undefined,
    );
    if (!best) continue;
    process.stdout.write(
      `${database}: target ≥ ${TARGET_RPS} new users/s sustained: ${best.r.rps >= TARGET_RPS ? "MET" : "MISSED"} (best ${best.r.rps}/s over ${Math.round(best.r.durationMs / 1000)} s, median second ${best.r.perSecond?.median}, ${best.workers} process(es), ${best.r.connections} connections)\n`,
    );
  }

  finishBench(
    // --split-only writes its own file: the sustained service figures in signup.json stay as measured.
    splitOnly ? "signup-split.json" : "signup.json",
    {
      date: new Date().toISOString(),
      machine,
      // The database(s) measured, as given to --db ("sqlite", "postgres" or "sqlite,postgres").
      database: databases.join(","),
      targetRps: TARGET_RPS,
      sustainedSeconds: SUSTAINED_SECONDS * scale,
      services: services.map(({ database, workers, runs, split }) => ({
        database,
        workers,
        runs: runs.map(runRecord),
        ...(split
          ? {
              // Split custody (issue 44), same service and run: sign-up + create_split_wallet.
              split: split.map(({ rounds, ...sp }) => ({
                ...sp,
                rounds: rounds.map((r) => ({
                  rps: r.rps,
                  p50Ms: r.p50Ms,
                  rateRatio: r.rateRatio,
                  p50Ratio: r.p50Ratio,
                  service: runRecord(r.service),
                  signup: runRecord(r.signup),
                  createWallet: runRecord(r.createWallet),
                })),
              })),
            }
          : {}),
      })),
      targetSplitRatio: TARGET_SPLIT_RATIO,
      // Bursts served from a full wallet reserve: launch-day spikes, not the sustained figure.
      spikes: spikes.map(({ run, ...rest }) => ({
        ...rest,
        fillSeconds: Math.round(rest.fillSeconds * 10) / 10,
        run: runRecord(run),
      })),
    },
    cpuProfDir,
  );
}

runBench(main);
