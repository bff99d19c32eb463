/**
 * Shared benchmark plumbing: start the service as a child process in a throw-away directory, create
 * sessions through the real signup → OTP → credential-bundle flow, and drive a fixed list of pre-built
 * requests at a fixed concurrency while timing each one.
 *
 * The load generator is deliberately plain: one `http.Agent` (keep-alive, exactly `connections` sockets)
 * and `connections` workers pulling the next pre-built request from a shared queue, so the client does
 * as little work per request as possible (no JSON, no crypto, no undici).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  toHex,
} from "../packages/protocol/src/index";
import { loadNativePbkdf2 } from "../packages/server/src/crypto/pbkdf2";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
const SERVER_BIN = join(REPO_ROOT, "packages", "server", "bin", "latchkey.js");

/** Every request comes from 127.0.0.1, so the per-IP and per-email limits must be out of the way. */
export const BENCH_RATE_LIMITS = {
  mailsPerEmail: 1_000_000,
  mailsPerIp: 1_000_000,
  signupsPerIp: 1_000_000,
  oauthPreparesPerIp: 1_000_000,
  otpAttemptsPerIp: 1_000_000,
  lookupsPerIp: 1_000_000,
};

// ---------------------------------------------------------------- databases

/** The database the service runs on: a SQLite file in the temp directory, or a throw-away PostgreSQL one. */
export type BenchDatabase = "sqlite" | "postgres";
export const BENCH_DATABASES: readonly BenchDatabase[] = ["sqlite", "postgres"];

/**
 * The PostgreSQL server the bench makes its throw-away databases on (as a superuser, trust auth on this
 * machine). LATCHKEY_BENCH_PG_URL points it elsewhere; the URL's own database name is ignored.
 */
export const PG_SERVER_URL = process.env.LATCHKEY_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432";
const BENCH_DB_NAME = /^latchkey_bench_[0-9a-f]+$/;

/** `PG_SERVER_URL` with its database set to `name`. */
function pgUrl(name: string): string {
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Databases created and not yet dropped: the exit hook drops what a crash or Ctrl-C left. */
const liveDatabases = new Set<string>();

async function withPgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgUrl("postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database `latchkey_bench_<random>` on `PG_SERVER_URL`; answers its name and URL. */
export async function createBenchDatabase(): Promise<{ name: string; url: string }> {
  const name = `latchkey_bench_${randomBytes(6).toString("hex")}`;
  try {
    await withPgAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  } catch (e) {
    throw new Error(
      `Could not create a PostgreSQL database on ${PG_SERVER_URL} (set LATCHKEY_BENCH_PG_URL to use another server): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  liveDatabases.add(name);
  return { name, url: pgUrl(name) };
}

/** Drops a database made by `createBenchDatabase`, ending whatever connections it still has. */
export async function dropBenchDatabase(name: string): Promise<void> {
  if (!BENCH_DB_NAME.test(name)) throw new Error(`Not a bench database: ${name}`);
  await withPgAdmin(async (c) => {
    const { rows } = await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    if (Number(rows[0]?.v) >= 130000) {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } else {
      await c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
    }
  });
  liveDatabases.delete(name);
}

/** The exit hook's last resort (no async work is possible there): drop the databases in a child process. */
function dropDatabasesSync(names: string[]): void {
  const script = `const pg = require("pg");
(async () => {
  const c = new pg.Client({ connectionString: process.argv[1] });
  await c.connect();
  for (const n of process.argv.slice(2)) await c.query("DROP DATABASE IF EXISTS " + n + " WITH (FORCE)");
  await c.end();
})().catch((e) => { process.stderr.write("dropping bench databases failed: " + e.message + "\\n"); process.exit(1); });`;
  spawnSync(
    process.execPath,
    ["-e", script, pgUrl("postgres"), ...names.filter((n) => BENCH_DB_NAME.test(n))],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "inherit", "inherit"],
      timeout: 15_000,
    },
  );
}

// ---------------------------------------------------------------- service process

export interface ServiceHandle {
  baseUrl: string;
  port: number;
  apiKey: string;
  /** The temp directory the service runs in (database, master key, dev API key). */
  dir: string;
  /** Processes serving (1: `--dev` with its mailbox; more: a config app and a real SMTP catcher). */
  workers: number;
  database: BenchDatabase;
  /** What the service got as `--db`: the SQLite file, or the throw-away PostgreSQL database's URL. */
  dbUrl: string;
  /** Subjects of mail caught by the bench's SMTP server (multi-worker runs). */
  caught?: { to: string; subject: string }[];
  pid: number;
  /**
   * Stops the service (SIGTERM, then SIGKILL after a grace period), removes its directory and drops its
   * PostgreSQL database.
   */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Run the service under `node --cpu-prof`, writing the profile into this directory on exit. */
  cpuProfDir?: string;
  /** Keep the temp directory (and the PostgreSQL database) after stopping, for inspecting the database. */
  keepDir?: boolean;
  /** Extra keys merged into the JSON config file. */
  config?: Record<string, unknown>;
  startTimeoutMs?: number;
  /** `latchkey serve --workers N` (node cluster over the same SQLite file or PostgreSQL database). */
  workers?: number;
  /**
   * The database (default sqlite): a SQLite file in the temp directory, or a fresh PostgreSQL database on
   * `PG_SERVER_URL`, created here and dropped by stop() (also when start-up fails).
   */
  database?: BenchDatabase;
}

const BENCH_API_KEY = "lk_bench_0123456789abcdefghijklmnop";

/** A real SMTP server for multi-worker runs, where the in-memory dev mailbox cannot be used. */
async function startMailCatcher() {
  const { SMTPServer } = await import("smtp-server");
  const caught: { to: string; subject: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, cb) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (d: string) => {
        raw += d;
      });
      stream.on("end", () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? "";
        for (const r of session.envelope.rcptTo) caught.push({ to: r.address, subject });
        cb();
      });
    },
  });
  // A service stopped mid-connection resets its pooled SMTP sockets: not an error of the benchmark.
  server.on("error", () => {});
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    caught,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Whatever happens to the bench process, it never leaves a service running behind it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
    if (liveDatabases.size > 0) dropDatabasesSync([...liveDatabases]);
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      for (const child of live) child.kill("SIGKILL");
      process.exit(130);
    });
  }
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  srv.close();
  await once(srv, "close");
  if (!port) throw new Error("Could not find a free port");
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startService(opts: StartOptions = {}): Promise<ServiceHandle> {
  installExitHook();
  const dir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-"));
  const configPath = join(dir, "config.json");
  const workers = opts.workers ?? 1;
  const catcher = workers > 1 ? await startMailCatcher() : null;
  const clusterConfig = catcher
    ? {
        smtp: { url: catcher.url },
        apps: [
          { id: "bench", name: "Bench", apiKeys: [BENCH_API_KEY], allowedOrigins: [], emailMode: "OTP" },
        ],
      }
    : {};
  writeFileSync(
    configPath,
    JSON.stringify({ rateLimits: BENCH_RATE_LIMITS, ...clusterConfig, ...opts.config }, null, 2),
  );
  const port = await freePort();
  const nodeArgs: string[] = [];
  if (opts.cpuProfDir) {
    mkdirSync(opts.cpuProfDir, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${opts.cpuProfDir}`);
  }
  // PostgreSQL: a fresh database per service, so runs never see each other's users (or data keys: the
  // dev master key file lives in the temp directory). Made last, right before the spawn, and from here on
  // stop() drops it.
  const database = opts.database ?? "sqlite";
  let pgDatabase: { name: string; url: string } | undefined;
  if (database === "postgres") {
    try {
      pgDatabase = await createBenchDatabase();
    } catch (e) {
      await catcher?.close();
      if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }
  const dbUrl = pgDatabase?.url ?? join(dir, "bench.db");
  const args = [
    ...nodeArgs,
    SERVER_BIN,
    "serve",
    ...(workers > 1 ? ["--workers", String(workers)] : ["--dev"]),
    "--db",
    dbUrl,
    "--port",
    String(port),
    "--log-level",
    "warn",
    "--config",
    configPath,
  ];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: workers > 1 ? { ...process.env, LATCHKEY_MASTER_KEY: randomBytes(32).toString("hex") } : process.env,
  });
  live.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    // Warnings and errors from the service are worth seeing while a benchmark runs.
    if (stderr.length < 20_000) process.stderr.write(`[service] ${d}`);
  });
  let exited: { code: number | null; signal: string | null } | null = null;
  const exitPromise = new Promise<void>((res) => {
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      live.delete(child);
      res();
    });
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      child.kill("SIGTERM");
      const timedOut = await Promise.race([exitPromise.then(() => false), sleep(15_000).then(() => true)]);
      if (timedOut) {
        child.kill("SIGKILL");
        await exitPromise;
      }
    }
    await catcher?.close();
    if (pgDatabase && opts.keepDir) {
      process.stderr.write(`Kept the PostgreSQL database ${pgDatabase.url} (drop it when done)\n`);
    } else if (pgDatabase) {
      try {
        await dropBenchDatabase(pgDatabase.name);
      } catch (e) {
        // Not thrown: it would hide the error that stopped the run, if any.
        process.stderr.write(
          `Could not drop the PostgreSQL database ${pgDatabase.name} (DROP DATABASE ${pgDatabase.name} WITH (FORCE)): ${e instanceof Error ? e.message : String(e)}\n`,
        );
      }
    }
    if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
  };

  try {
    const baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
    for (;;) {
      if (exited) {
        const e = exited as { code: number | null; signal: string | null };
        throw new Error(
          `The service exited during start-up (code ${e.code}, signal ${e.signal}):\n${stderr}${stdout}`,
        );
      }
      if (Date.now() > deadline)
        throw new Error(`The service did not become healthy in time:\n${stderr}${stdout}`);
      try {
        const r = await fetch(`${baseUrl}/healthz`);
        await r.arrayBuffer();
        if (r.ok && (workers > 1 ? /signer service on/.test(stdout) : /Dev app API key:/.test(stdout))) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    // The service names its database kind on start-up: make sure it runs on the one asked for.
    if (!new RegExp(`\\(${database}[,)]`).test(stdout))
      throw new Error(`The service does not say it runs on ${database}:\n${stdout}`);
    let apiKey = workers > 1 ? BENCH_API_KEY : /Dev app API key:\s*(\S+)/.exec(stdout)?.[1];
    if (!apiKey) {
      try {
        apiKey = readFileSync(join(dir, ".latchkey", "dev-api-key"), "utf8").trim();
      } catch {
        // handled below
      }
    }
    if (!apiKey) throw new Error(`Could not read the dev app API key from the service output:\n${stdout}`);
    return {
      baseUrl,
      port,
      apiKey,
      dir,
      pid: child.pid ?? -1,
      stop,
      workers,
      database,
      dbUrl,
      ...(catcher ? { caught: catcher.caught } : {}),
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Runs `fn` with a started service and always stops it afterwards. */
export async function withService<T>(opts: StartOptions, fn: (svc: ServiceHandle) => Promise<T>): Promise<T> {
  const svc = await startService(opts);
  try {
    return await fn(svc);
  } finally {
    await svc.stop();
  }
}

// ---------------------------------------------------------------- signer API helpers

export async function postJson<T = unknown>(svc: ServiceHandle, path: string, body: unknown): Promise<T> {
  const r = await fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${path} → ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

interface MailboxEntry {
  to: string;
  subject: string;
  sentAt: string;
}

/** The newest OTP code mailed to `email` (the 6-digit number in the subject). */
export async function readOtpCode(svc: ServiceHandle, email: string, timeoutMs = 5_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails: MailboxEntry[] = svc.caught
      ? svc.caught.map((m) => ({ ...m, sentAt: "" }))
      : ((await (await fetch(`${svc.baseUrl}/dev/mailbox.json`)).json()) as MailboxEntry[]);
    for (let i = mails.length - 1; i >= 0; i--) {
      const m = mails[i];
      if (!m || m.to !== email) continue;
      const code = /\b(\d{6})\b/.exec(m.subject)?.[1];
      if (code) return code;
    }
    if (Date.now() > deadline) throw new Error(`No OTP mail for ${email} in the dev mailbox`);
    await sleep(50);
  }
}

export interface Session {
  email: string;
  orgId: string;
  userId: string;
  address: string;
  solanaAddress: string;
  /** The session's P-256 private key (32 bytes), opened from the credential bundle. */
  sessionKey: Uint8Array;
}

/** Signs up `email`, reads the code from the dev mailbox, verifies it and opens the credential bundle. */
export async function createSession(svc: ServiceHandle, email: string): Promise<Session> {
  const targetPrivateKey = generateP256PrivateKey();
  const targetPublicKey = toHex(p256PublicKeyFromPrivate(targetPrivateKey, false));
  const signup = await postJson<{
    orgId: string;
    userId: string;
    address: string;
    solanaAddress: string;
    otpId: string;
  }>(svc, "/signer/v1/signup", { email, targetPublicKey });
  const otpCode = await readOtpCode(svc, email);
  const otp = await postJson<{ status: string; credentialBundle?: string }>(svc, "/signer/v1/otp", {
    orgId: signup.orgId,
    otpId: signup.otpId,
    otpCode,
    targetPublicKey,
  });
  if (otp.status !== "SUCCESS" || !otp.credentialBundle)
    throw new Error(`OTP did not succeed: ${JSON.stringify(otp)}`);
  const sessionKey = await openCredentialBundle({
    bundle: otp.credentialBundle,
    targetPrivateKey,
    targetPublicKey,
  });
  return {
    email,
    orgId: signup.orgId,
    userId: signup.userId,
    address: signup.address,
    solanaAddress: signup.solanaAddress,
    sessionKey,
  };
}

// ---------------------------------------------------------------- load generator

export interface PreparedRequest {
  path: string;
  /** The exact bytes to send (built before the run so the client does no work while timing). */
  body: Buffer;
}

export interface LoadOptions {
  baseUrl: string;
  requests: PreparedRequest[];
  /**
   * Sent first over the same sockets and left out of the figures, so the measured run starts on warm,
   * already-open keep-alive connections (steady state, not connection set-up).
   */
  warmup?: PreparedRequest[];
  connections: number;
  /** Headers sent with every request (content-type and content-length are added). */
  headers?: Record<string, string>;
  /** Optional check of a 2xx answer; returning a string marks the request as an error with that reason. */
  validate?: (status: number, body: string) => string | undefined;
  timeoutMs?: number;
  /** The service's pid: the result then carries its CPU time per measured request (serviceCpuMs). */
  servicePid?: number;
  /**
   * Sustained mode: the measured run stops taking new requests after this long (those in flight finish),
   * so `requests` must hold more than the service can answer in that time. The result then counts the
   * requests answered and carries the answers per second of each whole second (`perSecond`).
   */
  durationMs?: number;
}

export interface LoadResult {
  connections: number;
  requests: number;
  durationMs: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  errors: number;
  /** The load generator's own CPU use (this process) during the measured run, in cores: it shares them. */
  loadGeneratorCores: number;
  /** Error counts by kind: HTTP status, "network" or "invalid". */
  errorKinds: Record<string, number>;
  /** Failures during the warm-up (not counted in `errors`). */
  warmupErrors: Record<string, number>;
  /** A few failed answers, for diagnosis. */
  errorSamples: string[];
  /** The service's CPU time (user + system, all its processes) per measured request, in µs. */
  serviceCpuUsPerRequest?: number;
  /** Of that, the event loops' (the processes' main threads, without worker threads and libuv's pool). */
  eventLoopCpuUsPerRequest?: number;
  /** The service's CPU use during the measured run, in cores (1.0 = one core busy all the time). */
  serviceCores?: number;
  /** Sustained mode: answers completed in each whole second of the run, and their spread. */
  perSecond?: { min: number; median: number; max: number; seconds: number[] };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? 0;
}

function sendOne(
  agent: http.Agent,
  url: URL,
  req: PreparedRequest,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const r = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: req.path,
        headers: { ...headers, "content-length": String(req.body.length) },
        timeout: timeoutMs,
      },
      (resp) => {
        const chunks: Buffer[] = [];
        resp.on("data", (c: Buffer) => chunks.push(c));
        resp.on("end", () =>
          res({ status: resp.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        resp.on("error", rej);
      },
    );
    r.on("timeout", () => r.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    r.on("error", rej);
    r.end(req.body);
  });
}

/**
 * Sends every request in `opts.requests` exactly once over `connections` keep-alive sockets, each socket
 * carrying one request at a time (closed loop), and times each request from write to last byte.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const { requests, connections } = opts;
  const url = new URL(opts.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const headers = { "content-type": "application/json", ...opts.headers };
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const latencies = new Float64Array(requests.length);
  let record = latencies; // where the workers write latencies (a scratch array during the warm-up)
  const errorKinds: Record<string, number> = {};
  const errorSamples: string[] = [];
  let errors = 0;
  let next = 0;
  const warmupErrors: Record<string, number> = {};
  let warming = false;
  const fail = (kind: string, sample: string) => {
    if (warming) {
      warmupErrors[kind] = (warmupErrors[kind] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push(`warm-up ${kind}: ${sample.slice(0, 300)}`);
      return;
    }
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    if (errorSamples.length < 5) errorSamples.push(`${kind}: ${sample.slice(0, 300)}`);
  };

  let queue = requests;
  let completions: bigint[] | undefined;
  let stopAt: bigint | undefined;
  const worker = async () => {
    for (;;) {
      if (stopAt !== undefined && process.hrtime.bigint() >= stopAt) return;
      const i = next++;
      if (i >= queue.length) return;
      const req = queue[i] as PreparedRequest;
      const t0 = process.hrtime.bigint();
      try {
        const { status, body } = await sendOne(agent, url, req, headers, timeoutMs);
        const t1 = process.hrtime.bigint();
        record[i] = Number(t1 - t0) / 1e6;
        completions?.push(t1);
        if (status < 200 || status >= 300) fail(String(status), body);
        else {
          const problem = opts.validate?.(status, body);
          if (problem) fail("invalid", `${problem} — ${body}`);
        }
      } catch (e) {
        record[i] = Number(process.hrtime.bigint() - t0) / 1e6;
        fail("network", e instanceof Error ? e.message : String(e));
      }
    }
  };

  const workers = () => Promise.all(Array.from({ length: Math.min(connections, queue.length) }, worker));
  if (opts.warmup?.length) {
    queue = opts.warmup;
    warming = true;
    record = new Float64Array(queue.length);
    await workers();
    record = latencies;
    warming = false;
    queue = requests;
    next = 0;
  }
  const cpuBefore = opts.servicePid ? serviceCpuMs(opts.servicePid) : 0;
  const loopBefore = opts.servicePid ? eventLoopCpuMs(opts.servicePid) : 0;
  const clientBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  if (opts.durationMs !== undefined) {
    // Requests are handed out only until the deadline; those in flight then finish.
    stopAt = start + BigInt(Math.round(opts.durationMs * 1e6));
    completions = [];
  }
  await workers();
  const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuUsed = opts.servicePid ? serviceCpuMs(opts.servicePid) - cpuBefore : 0;
  const loopUsed = opts.servicePid ? eventLoopCpuMs(opts.servicePid) - loopBefore : 0;
  const client = process.cpuUsage(clientBefore);
  agent.destroy();

  const answered = completions ? completions.length : requests.length;
  const sorted = latencies.slice(0, answered).sort();
  let sum = 0;
  for (const l of sorted) sum += l;
  let perSecond: LoadResult["perSecond"];
  if (completions) {
    const seconds = new Array<number>(Math.floor(durationMs / 1000)).fill(0);
    for (const t of completions) {
      const s = Math.floor(Number(t - start) / 1e9);
      if (s < seconds.length) seconds[s] = (seconds[s] ?? 0) + 1;
    }
    const ordered = [...seconds].sort((x, y) => x - y);
    perSecond = {
      min: ordered[0] ?? 0,
      median: ordered[Math.floor(ordered.length / 2)] ?? 0,
      max: ordered[ordered.length - 1] ?? 0,
      seconds,
    };
  }
  return {
    connections,
    requests: answered,
    durationMs: round(durationMs, 1),
    rps: round(answered / (durationMs / 1000), 1),
    p50Ms: round(percentile(sorted, 50), 2),
    p90Ms: round(percentile(sorted, 90), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    maxMs: round(sorted[sorted.length - 1] ?? 0, 2),
    meanMs: round(sorted.length ? sum / sorted.length : 0, 2),
    errors,
    loadGeneratorCores: round((client.user + client.system) / 1000 / durationMs, 2),
    errorKinds,
    warmupErrors,
    errorSamples,
    ...(perSecond ? { perSecond } : {}),
    ...(opts.servicePid
      ? {
          serviceCpuUsPerRequest: round((cpuUsed * 1000) / answered, 0),
          serviceCores: round(cpuUsed / durationMs, 2),
          eventLoopCpuUsPerRequest: round((loopUsed * 1000) / answered, 0),
        }
      : {}),
  };
}

// ---------------------------------------------------------------- reporting

export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Latency figures of sequential samples in ms: count, mean, p50, p90 and max (one decimal). */
export function latencyStats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  return {
    n: s.length,
    meanMs: round(s.reduce((a, b) => a + b, 0) / s.length, 1),
    p50Ms: round(at(0.5), 1),
    p90Ms: round(at(0.9), 1),
    maxMs: round(s[s.length - 1] ?? Number.NaN, 1),
  };
}

/** Runs `fn` `n` times one after the other and answers each run's duration in ms. */
export async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemGiB: round(os.totalmem() / 2 ** 30, 1),
    calibration: calibrate(),
  };
}

/** "2 CPU(s) AMD EPYC, node v20…; one core: 410 BIP-39 seeds/s, SHA-512 450 MB/s" for a report's header. */
export function describeMachine(m: ReturnType<typeof machineInfo>): string {
  const c = m.calibration;
  const native = c.nativeSeedsPerSecond
    ? ` (native addon: ${c.nativeSeedsPerSecond}/s, ${c.nativeSeedLanes} at once)`
    : " (native addon not loaded)";
  return `${m.cpus} CPU(s) ${m.cpuModel}, node ${m.node}; one core: ${c.pbkdf2PerSecond} BIP-39 seeds/s by node:crypto${native}, SHA-512 ${c.sha512MBps} MB/s`;
}

let calibration:
  | {
      pbkdf2PerSecond: number;
      sha512MBps: number;
      nativeSeedsPerSecond: number | null;
      nativeSeedLanes: number | null;
    }
  | undefined;

/**
 * One core's speed at the work a sign-up is made of, measured on the spot (~0.75 s, once per process):
 * BIP-39 seeds per second (PBKDF2-HMAC-SHA512, 2,048 rounds) by node:crypto and by the native addon the
 * service uses where it loads (full batches, crypto/pbkdf2.ts), and SHA-512 throughput. Virtual machines
 * with the same CPU model have differed by 2× between sessions; these say which kind of machine a figure
 * is from (and whether it has AVX-512: 8 lanes).
 */
function calibrate() {
  if (calibration) return calibration;
  let t = performance.now();
  let seeds = 0;
  while (performance.now() - t < 250) {
    pbkdf2Sync("abandon abandon abandon", "mnemonic", 2048, 64, "sha512");
    seeds++;
  }
  const pbkdf2PerSecond = Math.round(seeds / ((performance.now() - t) / 1000));
  const chunk = Buffer.alloc(1 << 20);
  t = performance.now();
  let mb = 0;
  while (performance.now() - t < 250) {
    createHash("sha512").update(chunk).digest();
    mb++;
  }
  const sha512MBps = Math.round(mb / ((performance.now() - t) / 1000));
  const native = loadNativePbkdf2();
  let nativeSeedsPerSecond: number | null = null;
  if (native) {
    const batch = Array.from({ length: native.lanes }, () => Buffer.from("abandon abandon abandon"));
    const salts = batch.map(() => Buffer.from("mnemonic"));
    t = performance.now();
    seeds = 0;
    while (performance.now() - t < 250) {
      native.derive(batch, salts, 2048);
      seeds += batch.length;
    }
    nativeSeedsPerSecond = Math.round(seeds / ((performance.now() - t) / 1000));
  }
  calibration = {
    pbkdf2PerSecond,
    sha512MBps,
    nativeSeedsPerSecond,
    nativeSeedLanes: native?.lanes ?? null,
  };
  return calibration;
}

/** A plain-text table: one row per object, columns in the order given. */
export function table(rows: object[], columns: string[]): string {
  const cells = [
    columns,
    ...rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? ""))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  return [
    line(cells[0] as string[]),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map(line),
  ].join("\n");
}

export function printErrors(r: LoadResult): void {
  if (r.errors === 0 && Object.keys(r.warmupErrors).length === 0) return;
  process.stdout.write(
    `  ${r.errors} error(s) ${JSON.stringify(r.errorKinds)}, warm-up ${JSON.stringify(r.warmupErrors)}\n`,
  );
  for (const s of r.errorSamples) process.stdout.write(`    sample ${s}\n`);
}

/** A run as stored in bench/results (without the diagnostic samples). */
export function runRecord<R extends LoadResult>(r: R) {
  const { errorSamples: _samples, durationMs, ...kept } = r;
  // A sustained run's length is part of its figure.
  return r.perSecond ? { ...kept, durationMs } : kept;
}

/**
 * CPU time (user + system, ms) used so far by the service: the process `pid` and its direct children
 * (cluster workers). Read from /proc, so it is 0 where there is none. Taken around a run, it gives the
 * service's CPU per request, which VM noise and the load generator's share of the CPUs disturb far less
 * than throughput.
 */
export function serviceCpuMs(pid: number): number {
  return cpuOfTree(pid, (p) => `/proc/${p}/stat`);
}

/**
 * The CPU time of the service's event loops: the main thread of its process and of each child process,
 * without worker threads or libuv's thread pool. One event loop is what bounds one process's requests.
 */
export function eventLoopCpuMs(pid: number): number {
  return cpuOfTree(pid, (p) => `/proc/${p}/task/${p}/stat`);
}

/** User + system ms of `pid` and its child processes, each read from `statPath(pid)`. */
function cpuOfTree(pid: number, statPath: (pid: number) => string): number {
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const read = (p: number) => {
    try {
      const stat = readFileSync(statPath(p), "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / ticksPerMs };
    } catch {
      return undefined;
    }
  };
  let total = read(pid)?.cpu ?? 0;
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const child = read(Number(entry));
      if (child && child.ppid === pid) total += child.cpu;
    }
  } catch {
    // no /proc
  }
  return total;
}

/** Writes the results file, says where, and where the CPU profile went when one was taken. */
export function finishBench(name: string, data: unknown, cpuProfDir: string | undefined): void {
  process.stdout.write(`\nWrote ${writeResults(name, data)}\n`);
  if (cpuProfDir)
    process.stdout.write(
      `Service CPU profile in ${cpuProfDir} (summarise: npx tsx bench/profile-summary.ts ${cpuProfDir})\n`,
    );
}

/** Runs a bench's main; a failure prints its stack and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, name);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** `--cpu-prof[=dir]` on the bench command line: profile the service; returns the directory or undefined. */
export function cpuProfArg(argv = process.argv.slice(2)): string | undefined {
  for (const a of argv) {
    if (a === "--cpu-prof") return join(RESULTS_DIR, "prof");
    if (a.startsWith("--cpu-prof=")) return resolve(a.slice("--cpu-prof=".length));
  }
  return undefined;
}

/** `--workers=<n[,m…]>`: the service process counts to measure (default 1 and 2). */
export function workersArg(argv = process.argv.slice(2)): number[] {
  const a = argv.find((x) => x.startsWith("--workers="));
  const list = (a ? a.slice("--workers=".length) : "1,2").split(",").map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error("--workers takes whole numbers ≥ 1, e.g. 1,2");
  return list;
}

/**
 * `--db=<sqlite|postgres>`: the databases to run the service on (default sqlite); `--db=sqlite,postgres`
 * measures both, one after the other.
 */
export function dbArg(argv = process.argv.slice(2)): BenchDatabase[] {
  if (argv.includes("--db")) throw new Error("Write --db=sqlite, --db=postgres or --db=sqlite,postgres");
  const a = argv.find((x) => x.startsWith("--db="));
  const list = [
    ...new Set(
      (a ? a.slice("--db=".length) : "sqlite")
        .split(",")
        .map((d) => d.trim())
        .filter(Boolean),
    ),
  ];
  const bad = list.filter((d) => !(BENCH_DATABASES as readonly string[]).includes(d));
  if (list.length === 0 || bad.length > 0)
    throw new Error(`--db takes sqlite, postgres or both (sqlite,postgres); got ${a ?? ""}`);
  return list as BenchDatabase[];
}

/** `--scale=<f>` multiplies every request count (e.g. 0.1 for a quick smoke run). */
export function scaleArg(argv = process.argv.slice(2)): number {
  const a = argv.find((x) => x.startsWith("--scale="));
  const f = a ? Number(a.slice("--scale=".length)) : 1;
  if (!Number.isFinite(f) || f <= 0) throw new Error("--scale must be a positive number");
  return f;
}
