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
 * (bench/lib/split.ts). A sign-up is two requests in either app: the email's (`/v1/signup`: a service
 * app's derives and seals the wallet; a split app's makes the user alone) and the code's (`/v1/otp`, which
 * issues the session; a split user's carries the wallet the key holder made: one HPKE open, the Shamir
 * combine, the service's own derivation of the accounts from the entropy, the sealed share, recorded in
 * the code's transaction). Both pairs are measured at 1 and 16 connections, in interleaved rounds (the
 * machine's other load drifts; a service figure taken minutes earlier compared that drift); a pair's rate
 * is 1 / (1/rate₁ + 1/rate₂) and its p50 the sum, each round's split/service ratio taken and the median of
 * the rounds reported (target: within 1.5×). `--split-only` measures that alone.
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
import { SPLIT_API_KEY, SPLIT_APP, shareKeyOf, signInWalletOf } from "./lib/split";

/** Split custody's target: a split sign-up (sign-up + create_split_wallet) within 1.5× of a service one. */
const TARGET_SPLIT_RATIO = 1.5;

interface SplitRound {
  /** The service app's sign-up (its wallet derived in the sign-up request), then its code's sign-in. */
  service: LoadResult;
  serviceOtp: LoadResult;
  /** The split app's sign-up (no wallet), then its code's sign-in carrying the key holder's wallet. */
  signup: LoadResult;
  otpWallet: LoadResult;
  /** 1 / (1/service.rps + 1/serviceOtp.rps): service users signed up and in per second. */
  serviceRps: number;
  /** service.p50 + serviceOtp.p50. */
  serviceP50Ms: number;
  /** 1 / (1/signup.rps + 1/otpWallet.rps): split users made ready (wallet and session) per second. */
  rps: number;
  /** signup.p50 + otpWallet.p50. */
  p50Ms: number;
  rateRatio: number;
  p50Ratio: number;
  /**
   * The service's CPU per split sign-up (both requests) over its CPU per service sign-up: what the machine's
   * other load moves least (a busy machine stretches latencies, not the work a request costs).
   */
  cpuRatio: number;
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
  cpuRatio: number;
}

/** Interleaved rounds: the machine's other load drifts, and a ratio of runs minutes apart measured the drift. */
const SPLIT_ROUNDS = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

/** A sign-up's answer, by the email it was made for (the load's validate sees each request and its answer). */
type SignedUp = Map<string, { orgId: string; otpId: string }>;
const captureSignup =
  (into: SignedUp) =>
  (status: number, body: string, request: PreparedRequest): string | undefined => {
    if (status !== 200) return `status ${status}`;
    const { email } = JSON.parse(request.body.toString("utf8")) as { email: string };
    const { orgId, otpId } = JSON.parse(body) as { orgId?: string; otpId?: string };
    if (!orgId || !otpId) return "no orgId/otpId";
    into.set(email, { orgId, otpId });
    return undefined;
  };

/** The codes of the dev mailbox (it keeps the last 500 mails: read after each sign-up run), by address. */
async function otpCodes(svc: ServiceHandle): Promise<Map<string, string>> {
  const mails = (await (await fetch(`${svc.baseUrl}/dev/mailbox.json`)).json()) as {
    to: string;
    subject: string;
  }[];
  const codes = new Map<string, string>();
  for (const m of mails) {
    const code = /\b(\d{6})\b/.exec(m.subject)?.[1];
    if (code) codes.set(m.to, code);
  }
  return codes;
}

/**
 * The code's sign-in of each user signed up (in the order of `emails`), as the client sends it; for a
 * split app with the wallet its key holder made (both shares sealed to the share key for this sign-in):
 * the key holder's work is the user's device's, done before the timed run.
 */
async function otpRequests(
  svc: ServiceHandle,
  signedUp: SignedUp,
  emails: string[],
  shareKey?: string,
): Promise<PreparedRequest[]> {
  const codes = await otpCodes(svc);
  const out: PreparedRequest[] = [];
  for (const email of emails) {
    const made = signedUp.get(email);
    const otpCode = codes.get(email);
    if (!made || !otpCode) throw new Error(`no sign-up or code for ${email}`);
    const binding = { organizationId: made.orgId, otpId: made.otpId, targetPublicKey };
    const splitWallet = shareKey ? await signInWalletOf(binding, shareKey) : undefined;
    out.push({
      path: "/signer/v1/otp",
      body: Buffer.from(
        JSON.stringify({
          orgId: made.orgId,
          otpId: made.otpId,
          otpCode,
          targetPublicKey,
          ...(splitWallet ? { splitWallet } : {}),
        }),
      ),
    });
  }
  return out;
}

const emailsOf = (requests: PreparedRequest[]) =>
  requests.map((r) => (JSON.parse(r.body.toString("utf8")) as { email: string }).email);

/**
 * A split sign-up against a service one, side by side: at 1 and 16 connections, SPLIT_ROUNDS rounds of
 * (service sign-ups, their codes' sign-ins, split sign-ups, their codes' sign-ins carrying the wallets),
 * each round's ratio taken, the median reported. A sign-up is both requests: the email's, and the code's
 * that issues the session (and, for a split user, records the wallet).
 */
async function measureSplitSignup(svc: ServiceHandle): Promise<SplitSignup[]> {
  const runId = Date.now().toString(36);
  const splitHeaders = { authorization: `Bearer ${SPLIT_API_KEY}` };
  const serviceHeaders = { authorization: `Bearer ${svc.apiKey}` };
  const shareKey = await shareKeyOf(svc);
  const out: SplitSignup[] = [];
  const otpValidate = (status: number, body: string) =>
    status === 200 && body.includes('"SUCCESS"') && body.includes('"address"')
      ? undefined
      : `status ${status}: ${body.slice(0, 120)}`;
  for (const connections of [1, 16]) {
    const n = Math.max(40, Math.round((connections === 1 ? 100 : 400) * scale));
    const warm = 20;
    process.stdout.write(`\nsplit, ${connections} connection(s), ${n} users per run:\n`);
    const rounds: SplitRound[] = [];
    // One mode's pair of runs: the sign-ups, then (their codes read, the client's work done) the codes.
    const pair = async (mode: "svc" | "split", r: number) => {
      const tag = `${mode}-${runId}-c${connections}-r${r}`;
      const headers = mode === "svc" ? serviceHeaders : splitHeaders;
      const signedUp: SignedUp = new Map();
      const warmups = buildRequests(`${tag}-warm`, warm);
      const requests = buildRequests(tag, n);
      const signup = await runLoad({
        baseUrl: svc.baseUrl,
        warmup: warmups,
        requests,
        connections,
        headers,
        validate: captureSignup(signedUp),
        servicePid: svc.pid,
      });
      const key = mode === "split" ? shareKey : undefined;
      const otp = await runLoad({
        baseUrl: svc.baseUrl,
        warmup: await otpRequests(svc, signedUp, emailsOf(warmups), key),
        requests: await otpRequests(svc, signedUp, emailsOf(requests), key),
        connections,
        headers,
        validate: otpValidate,
        servicePid: svc.pid,
      });
      for (const run of [signup, otp]) printErrors(run);
      return {
        signup,
        otp,
        rps: 1 / (1 / signup.rps + 1 / otp.rps),
        p50Ms: signup.p50Ms + otp.p50Ms,
        cpuUs: (signup.serviceCpuUsPerRequest ?? Number.NaN) + (otp.serviceCpuUsPerRequest ?? Number.NaN),
      };
    };
    for (let r = 0; r < SPLIT_ROUNDS; r++) {
      const service = await pair("svc", r);
      const split = await pair("split", r);
      const round: SplitRound = {
        service: service.signup,
        serviceOtp: service.otp,
        signup: split.signup,
        otpWallet: split.otp,
        serviceRps: Math.round(service.rps * 10) / 10,
        serviceP50Ms: round2(service.p50Ms),
        rps: Math.round(split.rps * 10) / 10,
        p50Ms: round2(split.p50Ms),
        rateRatio: round2(service.rps / split.rps),
        p50Ratio: round2(split.p50Ms / service.p50Ms),
        cpuRatio: round2(split.cpuUs / service.cpuUs),
      };
      rounds.push(round);
      const fig = (x: LoadResult) =>
        `${x.rps}/s p50 ${x.p50Ms} ms (CPU ${x.serviceCpuUsPerRequest} µs, loop ${x.eventLoopCpuUsPerRequest} µs)`;
      process.stdout.write(
        `  round ${r + 1}: service sign-up ${fig(service.signup)} + code ${fig(service.otp)}; split sign-up ${fig(split.signup)} + code with wallet ${fig(split.otp)}: rate ×${round.rateRatio}, p50 ×${round.p50Ratio}, service CPU ×${round.cpuRatio}\n`,
      );
    }
    out.push({
      connections,
      rounds,
      rps: median(rounds.map((x) => x.rps)),
      p50Ms: median(rounds.map((x) => x.p50Ms)),
      serviceRps: median(rounds.map((x) => x.serviceRps)),
      serviceP50Ms: median(rounds.map((x) => x.serviceP50Ms)),
      rateRatio: median(rounds.map((x) => x.rateRatio)),
      p50Ratio: median(rounds.map((x) => x.p50Ratio)),
      cpuRatio: median(rounds.map((x) => x.cpuRatio)),
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
          `${database}: split sign-up (sign-up + the code's sign-in with the wallet) against a service one (sign-up + the code's sign-in) at ${sp.connections} connection(s), median of ${sp.rounds.length} interleaved rounds: ${sp.rps}/s, p50 ${sp.p50Ms} ms; service ${sp.serviceRps}/s, p50 ${sp.serviceP50Ms} ms: rate ×${sp.rateRatio}, p50 ×${sp.p50Ratio}, service CPU ×${sp.cpuRatio} (target ≤ ×${TARGET_SPLIT_RATIO}: ${Math.max(sp.rateRatio, sp.p50Ratio) <= TARGET_SPLIT_RATIO ? "MET" : "MISSED"})\n`,
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
              // Split custody (issue 44), same service and run: sign-up + the code's sign-in carrying the
              // wallet, against the service app's sign-up + the code's sign-in.
              split: split.map(({ rounds, ...sp }) => ({
                ...sp,
                rounds: rounds.map((r) => ({
                  rps: r.rps,
                  p50Ms: r.p50Ms,
                  serviceRps: r.serviceRps,
                  serviceP50Ms: r.serviceP50Ms,
                  rateRatio: r.rateRatio,
                  p50Ratio: r.p50Ratio,
                  cpuRatio: r.cpuRatio,
                  service: runRecord(r.service),
                  serviceOtp: runRecord(r.serviceOtp),
                  signup: runRecord(r.signup),
                  otpWallet: runRecord(r.otpWallet),
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
