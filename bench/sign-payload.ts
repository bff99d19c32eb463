/**
 * POST /signer/v1/sign-payload throughput and latency, against an in-process ceiling.
 *
 * Ceiling: the service's per-request crypto only (no HTTP, no DB, no JSON framework): P-256 stamp verify
 * with node:crypto on a cached KeyObject, AES-256-GCM open of the sealed secp256k1 key, secp256k1 sign
 * with recovery (RFC 6979, low-s), measured with noble and with libsecp256k1; the service's ceiling is the
 * one it signs with (/healthz). HTTP runs: fresh, unique, pre-stamped bodies at 1, 16 and 64
 * connections, each after a 500-request warm-up, for each database (--db) and service process count
 * (--workers); then, per database, the scaling ratio of 2 processes over 1 at 16 and 64 connections.
 *
 * Split custody (issue 44): with one service process, the same service also serves a split-custody app
 * (bench/lib/split.ts); its users sign with the user share sealed to each body (`stampedRequest.userShare`),
 * measured in the same run at 1 and 16 connections, and compared with the service-custody runs (target:
 * split p50 within 2× of service).
 *
 *   npm run bench:sign-payload [-- --scale=0.1] [-- --db=sqlite,postgres] [-- --cpu-prof[=dir]]
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
  randomBytes,
  randomUUID,
} from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1";
import { type Hex, recoverAddress } from "viem";
import { p256PublicKeyFromPrivate, stampWithPrivateKey, toHex } from "../packages/protocol/src/index";
import {
  loadNativeSecp256k1,
  nobleSecp256k1Impl,
  type Secp256k1,
  secp256k1Impl,
} from "../packages/server/src/crypto/secp256k1";
import { cpuProfArg, dbArg, scaleArg, workersArg } from "./lib/args";
import type { BenchDatabase } from "./lib/databases";
import { type LoadResult, type PreparedRequest, runLoad } from "./lib/load";
import {
  describeMachine,
  finishBench,
  machineInfo,
  printErrors,
  round,
  runBench,
  runRecord,
  table,
} from "./lib/report";
import { type ServiceHandle, withService } from "./lib/service";
import { createSession, type Session } from "./lib/signerApi";
import { createSplitSigner, SPLIT_API_KEY, SPLIT_APP, type SplitSigner, splitSignRequest } from "./lib/split";

/** Split custody's target: signing p50 within 2× of service custody's, in the same run. */
const TARGET_SPLIT_P50_RATIO = 2;

const SIGN_URL = "https://x/public/v1/submit/sign_raw_payload";
const PATH = "/signer/v1/sign-payload";
const SESSIONS = 4;
const WARMUP = 500;
const CEILING_SECONDS = 3; // three 1-second samples
const scale = scaleArg();
// `--connections=16` measures only those runs (for a quick look while profiling).
const connectionsArg = process.argv.find((a) => a.startsWith("--connections="));
const onlyConnections = connectionsArg?.slice("--connections=".length).split(",").map(Number);
const RUNS = [
  { connections: 1, requests: Math.round(3_000 * scale) },
  { connections: 16, requests: Math.round(10_000 * scale) },
  { connections: 64, requests: Math.round(10_000 * scale) },
].filter((r) => !onlyConnections || onlyConnections.includes(r.connections));
// Issue 16: ≥ 4,000 requests/s in one process at 16 connections (≈ 50% of the native ceiling measured
// when it was set), p99 ≤ 10 ms.
const TARGET_PCT_OF_CEILING = 50;
const TARGET_RPS_AT_16 = 4_000;
const TARGET_P99_MS_AT_16 = 10;

// ---------------------------------------------------------------- ceiling

const SPKI_P256_COMPRESSED = Buffer.from("3039301306072a8648ce3d020106082a8648ce3d030107032200", "hex");
const PKCS8_P256_PREFIX = Buffer.from(
  "3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420",
  "hex",
);

interface CeilingInput {
  body: string;
  derSigHex: string;
  digest: Uint8Array;
}

/** Same shape as the service's sealed secrets: `v1.<keyId>.<base64url(iv ‖ ct ‖ tag)>`, bound by AAD. */
function sealLikeService(key: Buffer, keyId: string, plaintext: Uint8Array, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `v1.${keyId}.${Buffer.concat([iv, ct]).toString("base64url")}`;
}

function openLikeService(keys: Map<string, Buffer>, sealed: string, context: string): Buffer {
  const [, keyId, data] = sealed.split(".");
  const key = keys.get(keyId as string) as Buffer;
  const raw = Buffer.from(data as string, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
}

function timeLoop(seconds: number, op: (i: number) => void): number {
  // Warm-up (JIT, noble's precomputed tables).
  for (let i = 0; i < 200; i++) op(i);
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  let n = 0;
  let elapsed = 0n;
  for (;;) {
    for (let k = 0; k < 32; k++) op(n++);
    elapsed = process.hrtime.bigint() - start;
    if (elapsed >= budget) break;
  }
  return n / (Number(elapsed) / 1e9);
}

function measureCeiling() {
  // The session key (P-256) that stamps, as the service sees it: a compressed public key → cached KeyObject.
  const p256Priv = new Uint8Array(randomBytes(32));
  p256Priv[0] = (p256Priv[0] ?? 0) & 0x7f; // keep it below the curve order
  const compressedHex = toHex(p256PublicKeyFromPrivate(p256Priv, true));
  const signer = createPrivateKey({
    key: Buffer.concat([PKCS8_P256_PREFIX, p256Priv]),
    format: "der",
    type: "pkcs8",
  });
  const keyCache = new Map<string, KeyObject>();
  const keyObject = (hex: string) => {
    let k = keyCache.get(hex);
    if (!k) {
      k = createPublicKey({
        key: Buffer.concat([SPKI_P256_COMPRESSED, Buffer.from(hex, "hex")]),
        format: "der",
        type: "spki",
      });
      keyCache.set(hex, k);
    }
    return k;
  };

  // The wallet key, sealed under a data key exactly as the keyring does.
  const dataKeyId = randomUUID();
  const dataKeys = new Map([[dataKeyId, randomBytes(32)]]);
  const accountId = randomUUID();
  const context = `wallet_account:${accountId}`;
  const sealed = sealLikeService(
    dataKeys.get(dataKeyId) as Buffer,
    dataKeyId,
    secp256k1.utils.randomPrivateKey(),
    context,
  );

  const inputs: CeilingInput[] = [];
  for (let i = 0; i < 1024; i++) {
    const digest = new Uint8Array(randomBytes(32));
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      timestampMs: String(Date.now()),
      organizationId: randomUUID(),
      parameters: {
        signWith: "0x0",
        payload: toHex(digest),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    const derSigHex = nodeSign("sha256", Buffer.from(body), { key: signer, dsaEncoding: "der" }).toString(
      "hex",
    );
    inputs.push({ body, derSigHex, digest });
  }
  const input = (i: number) => inputs[i & 1023] as CeilingInput;

  const verifyOp = (i: number) => {
    const x = input(i);
    const ok = nodeVerify(
      "sha256",
      Buffer.from(x.body),
      { key: keyObject(compressedHex), dsaEncoding: "der" },
      Buffer.from(x.derSigHex, "hex"),
    );
    if (!ok) throw new Error("ceiling: stamp did not verify");
  };
  const openOp = () => {
    const k = openLikeService(dataKeys, sealed, context);
    k.fill(0);
  };
  let sink = 0;
  // As the service does it (crypto/wallet.ts signSecp256k1): the signature, then r and s as hex.
  const signOp = (impl: Secp256k1) => (i: number, priv: Uint8Array) => {
    const sig = impl.sign(input(i).digest, priv);
    sink +=
      Buffer.from(sig.r).toString("hex").length + Buffer.from(sig.s).toString("hex").length + sig.recovery;
  };
  const walletKey = openLikeService(dataKeys, sealed, context);
  const full = (impl: Secp256k1) => {
    const sign = signOp(impl);
    return (i: number) => {
      verifyOp(i);
      const priv = openLikeService(dataKeys, sealed, context);
      try {
        sign(i, priv);
      } finally {
        priv.fill(0);
      }
    };
  };

  const p256VerifyOpsPerSec = round(timeLoop(1, verifyOp), 0);
  const aesGcmOpenOpsPerSec = round(timeLoop(1, openOp), 0);
  // Both ceilings: with noble (the fallback) and with libsecp256k1 (native, where the addon loads).
  const ceilings: Record<string, { opsPerSec: number; samples: number[]; secp256k1SignOpsPerSec: number }> =
    {};
  for (const impl of [nobleSecp256k1Impl(), loadNativeSecp256k1()]) {
    if (!impl) continue;
    const sign = signOp(impl);
    const secp256k1SignOpsPerSec = round(
      timeLoop(1, (i) => sign(i, walletKey)),
      0,
    );
    // The machine may be shared (VM steal): three 1-second samples, the median is the ceiling.
    const run = full(impl);
    const samples = Array.from({ length: CEILING_SECONDS }, () => round(timeLoop(1, run), 0));
    ceilings[impl.backend] = {
      opsPerSec: [...samples].sort((a, b) => a - b)[1] as number,
      samples,
      secp256k1SignOpsPerSec,
    };
  }
  // The service's own ceiling is the one of the implementation it signs with.
  const backend = secp256k1Impl().backend;
  const active = ceilings[backend] as (typeof ceilings)[string];
  if (sink < 0) process.stdout.write(""); // keep the signature work observable
  return {
    ceilingOpsPerSec: active.opsPerSec,
    samples: active.samples,
    backend,
    ceilings,
    breakdown: {
      p256VerifyOpsPerSec,
      aesGcmOpenOpsPerSec,
      secp256k1SignOpsPerSec: active.secp256k1SignOpsPerSec,
    },
  };
}

// ---------------------------------------------------------------- HTTP runs

function buildRequests(sessions: Session[], n: number): PreparedRequest[] {
  const out: PreparedRequest[] = [];
  for (let i = 0; i < n; i++) {
    const s = sessions[i % sessions.length] as Session;
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      timestampMs: String(Date.now()),
      organizationId: s.orgId,
      parameters: {
        signWith: s.address,
        payload: randomBytes(32).toString("hex"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    const stamp = stampWithPrivateKey(body, s.sessionKey);
    out.push({
      path: PATH,
      body: Buffer.from(JSON.stringify({ stampedRequest: { body, stamp, url: SIGN_URL } })),
    });
  }
  return out;
}

const SIGNATURE_RE = /"signature":"0x[0-9a-f]{128}(1b|1c)"/;
const validate = (_status: number, body: string) =>
  SIGNATURE_RE.test(body) ? undefined : "no 65-byte signature with v 27/28";

/** One signature checked end to end: it must recover to the session's EVM address. */
async function checkSignature(svc: ServiceHandle, s: Session): Promise<void> {
  const digest = `0x${randomBytes(32).toString("hex")}` as Hex;
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    timestampMs: String(Date.now()),
    organizationId: s.orgId,
    parameters: {
      signWith: s.address,
      payload: digest.slice(2),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    },
  });
  const stamp = stampWithPrivateKey(body, s.sessionKey);
  const r = await fetch(`${svc.baseUrl}${PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ stampedRequest: { body, stamp, url: SIGN_URL } }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`sign-payload check failed: ${r.status} ${text}`);
  const { signature } = JSON.parse(text) as { signature: Hex };
  const recovered = await recoverAddress({ hash: digest, signature });
  if (recovered.toLowerCase() !== s.address.toLowerCase()) {
    throw new Error(`sign-payload check: signature recovers to ${recovered}, expected ${s.address}`);
  }
}

async function main() {
  const machine = machineInfo();
  process.stdout.write(`sign-payload benchmark — ${describeMachine(machine)}\n`);
  process.stdout.write("Note: the load generator shares this machine's CPUs with the service.\n\n");

  process.stdout.write(`Ceiling (in-process crypto, ${CEILING_SECONDS} s)… `);
  const { ceilingOpsPerSec, samples, breakdown, backend, ceilings } = measureCeiling();
  process.stdout.write(
    `${ceilingOpsPerSec} ops/s with ${backend}, the service's (median of ${samples.join(", ")})\n`,
  );
  for (const [name, c] of Object.entries(ceilings))
    process.stdout.write(
      `  with ${name}: ${c.opsPerSec} ops/s; secp256k1 sign ${c.secp256k1SignOpsPerSec}/s\n`,
    );
  process.stdout.write(
    `  verify ${breakdown.p256VerifyOpsPerSec}/s, aes-gcm open ${breakdown.aesGcmOpenOpsPerSec}/s\n\n`,
  );

  const cpuProfDir = cpuProfArg();
  const databases = dbArg();
  const workersList = workersArg();
  type Run = LoadResult & { pctOfCeiling: number };
  const services: { database: BenchDatabase; workers: number; runs: Run[]; split?: LoadResult[] }[] = [];
  for (const database of databases) {
    for (const workers of workersList) {
      process.stdout.write(`\n== ${database}: ${workers} service process(es) ==\n`);
      // One process: the split-custody app beside the dev app, measured in the same service.
      const withSplit = workers === 1;
      const { runs, split } = await withService(
        { cpuProfDir, workers, database, ...(withSplit ? { config: { apps: [SPLIT_APP] } } : {}) },
        async (svc) => ({
          runs: await measureService(svc),
          split: withSplit ? await measureSplit(svc) : undefined,
        }),
      );
      services.push({ database, workers, runs, ...(split ? { split } : {}) });
      if (split) {
        process.stdout.write(
          `\n${database}, split custody (1 process):\n${table(split, ["connections", "requests", "rps", "p50Ms", "p90Ms", "p99Ms", "errors", "serviceCpuUsPerRequest"])}\n`,
        );
        for (const r of split) {
          const service = runs.find((x) => x.connections === r.connections);
          if (!service) continue;
          const ratio = round(r.p50Ms / service.p50Ms, 2);
          process.stdout.write(
            `${database}: split p50 ${r.p50Ms} ms vs service ${service.p50Ms} ms at ${r.connections} connection(s): ×${ratio} (target ≤ ×${TARGET_SPLIT_P50_RATIO}: ${ratio <= TARGET_SPLIT_P50_RATIO ? "MET" : "MISSED"})\n`,
          );
        }
      }
      process.stdout.write(
        `\nCeiling: ${ceilingOpsPerSec} ops/s (verify + AES-GCM open + secp256k1 sign with ${backend}, one core)\n\n`,
      );
      process.stdout.write(`${database}, ${workers} service process(es):\n`);
      process.stdout.write(
        `${table(
          runs.map((r) => ({ ...r, pctOfCeiling: `${r.pctOfCeiling}%` })),
          [
            "connections",
            "requests",
            "rps",
            "p50Ms",
            "p90Ms",
            "p99Ms",
            "maxMs",
            "errors",
            "pctOfCeiling",
            "serviceCpuUsPerRequest",
            "eventLoopCpuUsPerRequest",
          ],
        )}\n\n`,
      );
    }
  }

  const verdict = (ok: boolean) => (ok ? "MET" : "MISSED");
  for (const database of databases) {
    const mine = services.filter((s) => s.database === database);
    const one = (mine.find((s) => s.workers === 1) ?? mine[0])?.runs ?? [];
    const at16 = one.find((r) => r.connections === 16);
    const best = Math.max(...one.map((r) => r.pctOfCeiling));
    process.stdout.write(
      `${database}: target ≥ ${TARGET_PCT_OF_CEILING}% of ceiling (one process): ${verdict(best >= TARGET_PCT_OF_CEILING)} (best ${best}%)\n`,
    );
    if (at16) {
      process.stdout.write(
        `${database}: target ≥ ${TARGET_RPS_AT_16} req/s at 16 connections (one process): ${verdict(at16.rps >= TARGET_RPS_AT_16)} (${at16.rps} req/s)\n`,
      );
      process.stdout.write(
        `${database}: target p99 ≤ ${TARGET_P99_MS_AT_16} ms at 16 connections (one process): ${verdict(at16.p99Ms <= TARGET_P99_MS_AT_16)} (${at16.p99Ms} ms)\n`,
      );
    }
  }

  // Scaling: the best rps with 2 service processes over the best with 1, per database and connection
  // count (best: `--workers=1,2,1,2` measures each twice).
  const bestRps = (database: BenchDatabase, workers: number, connections: number) => {
    const rps = services
      .filter((s) => s.database === database && s.workers === workers)
      .flatMap((s) => s.runs.filter((r) => r.connections === connections).map((r) => r.rps));
    return rps.length ? Math.max(...rps) : undefined;
  };
  const scaling: Partial<Record<BenchDatabase, { at16?: number; at64?: number }>> = {};
  for (const database of databases) {
    const ratios: { at16?: number; at64?: number } = {};
    const parts: string[] = [];
    for (const connections of [16, 64] as const) {
      const one = bestRps(database, 1, connections);
      const two = bestRps(database, 2, connections);
      if (!one || !two) continue;
      const ratio = round(two / one, 2);
      ratios[connections === 16 ? "at16" : "at64"] = ratio;
      parts.push(`×${ratio} at ${connections} connections (${two} vs ${one} req/s)`);
    }
    if (parts.length === 0) continue;
    scaling[database] = ratios;
    process.stdout.write(`${database}: scaling 2 processes / 1: ${parts.join(", ")}\n`);
  }

  finishBench(
    "sign-payload.json",
    {
      date: new Date().toISOString(),
      machine,
      ceilingOpsPerSec,
      ceilingBackend: backend,
      ceilingSamples: samples,
      ceilingBreakdown: breakdown,
      ceilings,
      targets: {
        pctOfCeiling: TARGET_PCT_OF_CEILING,
        rpsAt16Connections: TARGET_RPS_AT_16,
        p99MsAt16Connections: TARGET_P99_MS_AT_16,
      },
      services: services.map(({ database, workers, runs, split }) => ({
        database,
        workers,
        runs: runs.map(runRecord),
        ...(split
          ? {
              // Split custody (issue 44), same service and run: the user share sealed to each body.
              split: split.map((r) => {
                const service = runs.find((x) => x.connections === r.connections);
                return {
                  ...runRecord(r),
                  ...(service ? { p50RatioToService: round(r.p50Ms / service.p50Ms, 2) } : {}),
                };
              }),
            }
          : {}),
      })),
      targets_split: { p50RatioToService: TARGET_SPLIT_P50_RATIO },
      scaling,
    },
    cpuProfDir,
  );

  /** Split custody: split users with wallets, one signature checked, then 1 and 16 connections. */
  async function measureSplit(svc: ServiceHandle): Promise<LoadResult[]> {
    const runId = Date.now().toString(36);
    const signers: SplitSigner[] = [];
    for (let i = 0; i < SESSIONS; i++)
      signers.push(await createSplitSigner(svc, `split-${runId}-${i}@bench.test`));
    const digest = `0x${randomBytes(32).toString("hex")}` as Hex;
    const check = await splitSignRequest(signers[0] as SplitSigner, digest.slice(2));
    const res = await fetch(`${svc.baseUrl}${check.path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${SPLIT_API_KEY}`, "content-type": "application/json" },
      body: check.body.toString("utf8"),
    });
    const { signature } = (await res.json()) as { signature: Hex };
    if ((await recoverAddress({ hash: digest, signature })) !== (signers[0] as SplitSigner).address)
      throw new Error("split sign-payload check: the signature does not recover to the split address");
    process.stdout.write(`\nSplit custody: ${SESSIONS} split users with wallets, signature check passed.\n`);
    const build = async (n: number) => {
      const out: PreparedRequest[] = [];
      for (let i = 0; i < n; i++)
        out.push(
          await splitSignRequest(signers[i % signers.length] as SplitSigner, randomBytes(32).toString("hex")),
        );
      return out;
    };
    const results: LoadResult[] = [];
    for (const run of RUNS.filter((r) => r.connections <= 16)) {
      const t0 = Date.now();
      const warm = await build(WARMUP);
      const reqs = await build(run.requests);
      process.stdout.write(
        `split, ${run.connections} connection(s): stamped and sealed ${WARMUP}+${run.requests} bodies in ${Date.now() - t0} ms; measuring… `,
      );
      const r = await runLoad({
        baseUrl: svc.baseUrl,
        warmup: warm,
        requests: reqs,
        connections: run.connections,
        headers: { authorization: `Bearer ${SPLIT_API_KEY}` },
        validate,
        servicePid: svc.pid,
      });
      process.stdout.write(`${r.rps} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms\n`);
      printErrors(r);
      results.push(r);
    }
    return results;
  }

  /** Sessions, one signature checked end to end, then the runs at each connection count. */
  async function measureService(svc: ServiceHandle): Promise<Run[]> {
    const runId = Date.now().toString(36);
    const sessions: Session[] = [];
    for (let i = 0; i < SESSIONS; i++)
      sessions.push(await createSession(svc, `sign-${runId}-${i}@bench.test`));
    await checkSignature(svc, sessions[0] as Session);
    process.stdout.write(
      `Service pid ${svc.pid} on ${svc.baseUrl} (${svc.database}); ${SESSIONS} sessions ready, signature check passed.\n`,
    );

    const headers = { authorization: `Bearer ${svc.apiKey}` };
    const results: Run[] = [];
    for (const run of RUNS) {
      // Stamped just before the run: bodies are unique and inside the 5-minute timestamp window.
      const t0 = Date.now();
      const warm = buildRequests(sessions, WARMUP);
      const reqs = buildRequests(sessions, run.requests);
      process.stdout.write(
        `\n${run.connections} connection(s): stamped ${WARMUP}+${run.requests} bodies in ${Date.now() - t0} ms; warm-up, then measuring… `,
      );
      const r = await runLoad({
        baseUrl: svc.baseUrl,
        warmup: warm,
        requests: reqs,
        connections: run.connections,
        headers,
        validate,
        servicePid: svc.pid,
      });
      process.stdout.write(
        `${r.rps} req/s, p99 ${r.p99Ms} ms; service CPU ${r.serviceCpuUsPerRequest} µs/request (${r.serviceCores} cores), event loop ${r.eventLoopCpuUsPerRequest} µs; load generator ${r.loadGeneratorCores} cores\n`,
      );
      printErrors(r);
      results.push({ ...r, pctOfCeiling: round((100 * r.rps) / ceilingOpsPerSec, 1) });
    }
    return results;
  }
}

runBench(main);
