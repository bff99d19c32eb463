/**
 * New users per second: POST /signer/v1/signup with unique emails on SQLite. Each signup creates the
 * user, a fresh BIP-39 wallet (PBKDF2 seed, BIP-32 secp256k1 + SLIP-10 ed25519 accounts, sealed), an
 * OTP row and a dev-mailbox mail, all in one transaction.
 *
 *   npm run bench:signup [-- --scale=0.1] [-- --cpu-prof[=dir]]
 */
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../packages/protocol/src/index";
import {
  cpuProfArg,
  finishBench,
  type LoadResult,
  machineInfo,
  type PreparedRequest,
  printErrors,
  runBench,
  runLoad,
  runRecord,
  scaleArg,
  table,
  withService,
  workersArg,
} from "./lib";

const PATH = "/signer/v1/signup";
const WARMUP = 100;
const TARGET_RPS = 300;
const scale = scaleArg();
const RUNS = [
  { connections: 1, requests: Math.round(500 * scale) },
  { connections: 16, requests: Math.round(3_000 * scale) },
  { connections: 64, requests: Math.round(3_000 * scale) },
];

// OTP mode never uses the target key at signup (it is checked for shape only), so one key serves all.
const targetPublicKey = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));

function buildRequests(prefix: string, n: number): PreparedRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    path: PATH,
    body: Buffer.from(JSON.stringify({ email: `${prefix}-${i}@bench.test`, targetPublicKey })),
  }));
}

const SIGNUP_RE = /"orgId":"[^"]+".*"address":"0x[0-9a-fA-F]{40}".*"otpId":"[^"]+"/;
const validate = (_status: number, body: string) =>
  SIGNUP_RE.test(body) ? undefined : "no orgId/address/otpId";

async function main() {
  const machine = machineInfo();
  process.stdout.write(
    `signup benchmark (SQLite) — ${machine.cpus} CPU(s) ${machine.cpuModel}, node ${machine.node}\n`,
  );
  process.stdout.write("Note: the load generator shares this machine's CPUs with the service.\n");

  const cpuProfDir = cpuProfArg();
  const byWorkers: { workers: number; runs: LoadResult[] }[] = [];
  for (const workers of workersArg()) {
    process.stdout.write(`\n== ${workers} service process(es) ==\n`);
    const runs = await withService({ cpuProfDir, workers }, async (svc) => {
      process.stdout.write(`Service pid ${svc.pid} on ${svc.baseUrl}\n`);
      const runId = Date.now().toString(36);
      const headers = { authorization: `Bearer ${svc.apiKey}` };
      const results: LoadResult[] = [];
      for (const run of RUNS) {
        process.stdout.write(
          `\n${run.connections} connection(s): measuring (after ${WARMUP} warm-up signups)… `,
        );
        const r = await runLoad({
          baseUrl: svc.baseUrl,
          warmup: buildRequests(`warm-${runId}-c${run.connections}`, WARMUP),
          requests: buildRequests(`signup-${runId}-c${run.connections}`, run.requests),
          connections: run.connections,
          headers,
          validate,
        });
        process.stdout.write(`${r.rps} signups/s, p99 ${r.p99Ms} ms\n`);
        printErrors(r);
        results.push(r);
      }
      return results;
    });
    byWorkers.push({ workers, runs });
    process.stdout.write(
      `\n${table(runs, ["connections", "requests", "rps", "p50Ms", "p90Ms", "p99Ms", "maxMs", "errors"])}\n\n`,
    );
  }
  const best = Math.max(...byWorkers.flatMap((w) => w.runs.map((r) => r.rps)));
  process.stdout.write(
    `Target ≥ ${TARGET_RPS} signups/s: ${best >= TARGET_RPS ? "MET" : "MISSED"} (best ${best}/s)\n`,
  );

  finishBench(
    "signup.json",
    {
      date: new Date().toISOString(),
      machine,
      database: "sqlite",
      targetRps: TARGET_RPS,
      services: byWorkers.map(({ workers, runs }) => ({
        workers,
        runs: runs.map(runRecord),
      })),
    },
    cpuProfDir,
  );
}

runBench(main);
