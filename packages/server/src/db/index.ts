import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Worker } from "node:worker_threads";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { migrateToLatest } from "./migrations/index";
import type { Database } from "./schema";
import { sqliteDialect } from "./sqliteDriver";

export type { Database } from "./schema";
export type Db = Kysely<Database>;

/** Runs `work` in `db` when that is already a transaction (it commits with the caller's), else in a new one. */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
export type DbKind = "sqlite" | "postgres";

export interface OpenedDatabase {
  db: Db;
  kind: DbKind;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/**
 * Opens the database named by `url`: a `postgres://` URL, or a SQLite file path (`:memory:` for tests).
 * SQLite runs in WAL mode so several processes can share one file; a write waits for another process's
 * lock without stopping the event loop (sqliteDriver.ts).
 */
export function openDatabase(
  url: string,
  options: { poolSize?: number; walResetFrames?: number } = {},
): OpenedDatabase {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      // int8 columns hold milliseconds: well inside Number's safe range.
      types: {
        getTypeParser: (oid: number, format?: "text" | "binary") =>
          oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text"),
      },
    });
    // An idle connection the server closes (a restart, a failover, pg_terminate_backend, an idle timeout)
    // is reported on the pool. Without a listener that report is an uncaught exception that stops the
    // service; the pool has already dropped the connection, and the next query opens a new one.
    pool.on("error", () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  if (url !== ":memory:") mkdirSync(dirname(url), { recursive: true });
  const sqlite = new SQLite(url);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  // No busy timeout: another process's write lock is waited for without blocking (sqliteDriver.ts).
  sqlite.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: sqliteDialect(cachingStatements(sqlite)) });
  const checkpointer =
    url === ":memory:"
      ? undefined
      : startCheckpointer(sqlite, url, options.walResetFrames ?? WAL_RESET_FRAMES, (reset) =>
          // The driver's one connection is held while the thread restarts the log: no transaction of this
          // process is open meanwhile, and the event loop goes on serving what needs no database.
          db.connection().execute(() => reset()),
        );
  return {
    db,
    kind: "sqlite",
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** How often the background thread moves the write-ahead log into the database file. */
const CHECKPOINT_INTERVAL_MS = 200;
/** A log longer than this (frames of 4 KiB: ~64 MiB) is started over between two transactions. */
const WAL_RESET_FRAMES = 16384;

/** How long this process holds its database work back for one restart of the log, at most. */
const WAL_RESET_TIMEOUT_MS = 5_000;

// Runs in a worker thread with its own connection to the same file.
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
let resetAsked = false;
const checkpoint = () => {
  try {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    if (r && r.log > workerData.walResetFrames && !resetAsked) {
      // The pages passive checkpoints copied are in the OS's cache, not yet on disk (they sync only
      // when they catch up, which they never do under steady writes): the restart would flush them all
      // while the serving connection waits. On a 14 GB database, where each signature dirties pages
      // all over its indexes, that hold was 93-138 ms (bench/scale.ts, 1M users); flushed here first,
      // on this thread, the restart has only its own few pages left (6-18 ms).
      const fd = fs.openSync(workerData.file, "r");
      try { fs.fdatasyncSync(fd); } finally { fs.closeSync(fd); }
      // Catch up with what was written during that pass, so that less is left to copy while the serving
      // connection waits.
      db.pragma("wal_checkpoint(PASSIVE)");
      resetAsked = true;
      parentPort.postMessage("reset?");
    }
  } catch {}
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (m) => {
  if (m === "reset") {
    // The serving connection is idle until we answer: nothing of this process holds the write lock. Another
    // process may: wait for it briefly (this process's work waits meanwhile), else try at the next ask.
    // RESTART copies what is left and makes the next write start the log over from its first frame; the
    // file keeps its size and is written over. TRUNCATE would also cut the file to nothing, and that costs
    // ~1.3 ms per MiB (the kernel frees its pages): 0.1-0.4 s of waiting on a 2-vCPU VM.
    db.pragma("busy_timeout = 100");
    try { db.pragma("wal_checkpoint(RESTART)"); } catch {}
    db.pragma("busy_timeout = 1000");
    resetAsked = false;
    parentPort.postMessage("reset-done");
    return;
  }
  if (m === "not-now") { resetAsked = false; return; }
  clearInterval(timer); checkpoint(); db.close(); parentPort.close();
});
`;

/**
 * SQLite checkpoints the write-ahead log inside whichever commit crosses 1000 pages: copying pages and an
 * fsync on the event loop, which was most of the signing path's tail latency. A worker thread with its
 * own connection checkpoints every 200 ms instead (PASSIVE: it never blocks a writer), and this
 * connection stops checkpointing by itself. Should the thread fail, this connection checkpoints again.
 *
 * Under writes that never pause, a PASSIVE checkpoint never catches up with the end of the log, and
 * SQLite only starts the log over once one has: a minute of sign-ups grew it to 4.5 GB beside a 245 MB
 * database, and every lookup through its index got slower. A checkpoint from another thread cannot
 * wait for a gap: the serving connection starts its next transaction at once. So once the log passes
 * `walResetFrames`, the thread catches up and asks for a restart. `holdDatabase` holds this process's
 * database work back between two transactions while the thread copies the last frames and restarts the
 * log (RESTART): the next write goes to the log's first frame, so the file stops growing (at 2-3 times
 * the limit under the heaviest writes measured) and is written over. What waits is the rest of the
 * frames and an fsync, never the event loop.
 */
function startCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  walResetFrames: number,
  holdDatabase: (reset: () => Promise<void>) => Promise<void>,
): { stop(): Promise<void> } | undefined {
  let worker: Worker;
  try {
    worker = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve("better-sqlite3"),
        file,
        intervalMs: CHECKPOINT_INTERVAL_MS,
        walResetFrames,
      },
    });
  } catch {
    return undefined;
  }
  worker.unref();
  let stopping = false;
  let gone = false;
  const fallback = () => {
    gone = true;
    if (!stopping && sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
  };
  worker.on("error", fallback);
  worker.on("exit", fallback);
  // Resolves when the thread has restarted the log, has gone, or takes too long: never holds work forever.
  const reset = () =>
    new Promise<void>((resolve) => {
      if (gone || stopping) return resolve();
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", done);
        resolve();
      };
      const onMessage = (m: unknown) => {
        if (m === "reset-done") done();
      };
      const timer = setTimeout(done, WAL_RESET_TIMEOUT_MS);
      worker.on("message", onMessage);
      worker.once("exit", done);
      worker.postMessage("reset");
    });
  worker.on("message", (m) => {
    if (m !== "reset?") return;
    if (stopping) return worker.postMessage("not-now");
    holdDatabase(reset).catch(() => {
      if (!gone && !stopping) worker.postMessage("not-now");
    });
  });
  sqlite.pragma("wal_autocheckpoint = 0");
  return {
    async stop() {
      stopping = true;
      // Held from here: the caller awaits this, and an unreferenced thread would let the process end first.
      worker.ref();
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage("stop");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

export async function migrate(db: Db): Promise<string[]> {
  return migrateToLatest(db as unknown as Kysely<unknown>);
}

/**
 * Kysely's SQLite driver prepares every statement anew; preparing is ~10% of a signature's CPU. Statements
 * are reusable in better-sqlite3, so they are kept per SQL text (bounded: `in (…)` lists vary).
 */
function cachingStatements(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    sqlite,
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (sql: string) => {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= 500) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}
