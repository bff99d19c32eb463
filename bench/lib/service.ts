/**
 * The service under test as a child process in a throw-away directory (`latchkey serve`, one or more
 * workers, SQLite or PostgreSQL), which never outlives the bench process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import { join } from "node:path";
import {
  type BenchDatabase,
  createBenchDatabase,
  dropBenchDatabase,
  dropDatabasesSync,
  liveDatabases,
} from "./databases";
import { REPO_ROOT } from "./paths";

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
  /**
   * A database the caller made and keeps (a SQLite file or a PostgreSQL URL): the service runs on it and
   * stop() leaves it. Used with `dir` and `masterKey` to restart a service on the same data.
   */
  dbUrl?: string;
  /** Run in this directory and leave it on stop() (the caller owns it). */
  dir?: string;
  /**
   * Not `--dev` even with one process: the config file's apps (`config.apps` replaces the bench app), a
   * real SMTP catcher for the codes and `masterKey` as LATCHKEY_MASTER_KEY, as with several processes.
   */
  configApps?: boolean;
  /** LATCHKEY_MASTER_KEY (hex) for a config-apps service: the same key opens the same data after a restart. */
  masterKey?: string;
  /** Extra environment variables for the service (e.g. LATCHKEY_RETENTION_*). */
  env?: Record<string, string>;
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startService(opts: StartOptions = {}): Promise<ServiceHandle> {
  installExitHook();
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(os.tmpdir(), "latchkey-bench-"));
  const keepDir = opts.keepDir || !ownDir;
  const configPath = join(dir, "config.json");
  const workers = opts.workers ?? 1;
  const configApps = workers > 1 || opts.configApps === true;
  const catcher = configApps ? await startMailCatcher() : null;
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
  if (database === "postgres" && opts.dbUrl === undefined) {
    try {
      pgDatabase = await createBenchDatabase();
    } catch (e) {
      await catcher?.close();
      if (!keepDir) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }
  const dbUrl = opts.dbUrl ?? pgDatabase?.url ?? join(dir, "bench.db");
  const args = [
    ...nodeArgs,
    SERVER_BIN,
    "serve",
    ...(workers > 1 ? ["--workers", String(workers)] : configApps ? [] : ["--dev"]),
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
    env: {
      ...process.env,
      ...(configApps ? { LATCHKEY_MASTER_KEY: opts.masterKey ?? randomBytes(32).toString("hex") } : {}),
      ...opts.env,
    },
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
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
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
        if (r.ok && (configApps ? /signer service on/.test(stdout) : /Dev app API key:/.test(stdout))) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    // The service names its database kind on start-up: make sure it runs on the one asked for.
    if (!new RegExp(`\\(${database}[,)]`).test(stdout))
      throw new Error(`The service does not say it runs on ${database}:\n${stdout}`);
    const configKey = (opts.config?.apps as { apiKeys?: string[] }[] | undefined)?.[0]?.apiKeys?.[0];
    let apiKey = configApps ? (configKey ?? BENCH_API_KEY) : /Dev app API key:\s*(\S+)/.exec(stdout)?.[1];
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
