import type SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";

/** What a statement or a BEGIN may wait for another process's write lock, in all. */
export const LOCK_WAIT_MS = 5_000;

interface Statements {
  /** The connection itself (for `inTransaction`). */
  sqlite: SQLite.Database;
  prepare(sql: string): SQLite.Statement;
  close(): void;
}

const isBusy = (e: unknown) => /^SQLITE_BUSY/.test((e as { code?: string }).code ?? "");

/**
 * SQLite shared by several processes, without stopping the event loop while another one writes.
 *
 * better-sqlite3 is synchronous. With a busy timeout, a statement that meets another process's write
 * lock sleeps inside SQLite, and the whole process sleeps with it: with two service processes that was
 * 1.4 ms per sign-up of an event loop doing nothing. Here the connection has no busy timeout. A
 * transaction begins IMMEDIATE, so it takes the write lock at once or fails at once (never halfway
 * through, where only starting again would help). A BEGIN, or a statement outside a transaction,
 * refused with SQLITE_BUSY is tried again after an asynchronous pause, until `lockWaitMs` have passed.
 * Meanwhile this process goes on parsing requests and running crypto; its own queries wait their turn
 * for the one connection, as they did before.
 */
export function sqliteDialect(statements: Statements, opts: { lockWaitMs?: number } = {}): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new SqliteDriver(statements, opts.lockWaitMs ?? LOCK_WAIT_MS),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

class SqliteDriver implements Driver {
  readonly #connection: SqliteConnection;
  readonly #statements: Statements;
  #locked: Promise<void> | null = null;
  #unlock: (() => void) | null = null;

  constructor(statements: Statements, lockWaitMs: number) {
    this.#statements = statements;
    this.#connection = new SqliteConnection(statements, lockWaitMs);
    statements.sqlite.pragma("busy_timeout = 0");
  }

  async init(): Promise<void> {}

  /** One connection, one user at a time (as Kysely's own SQLite driver). */
  async acquireConnection(): Promise<DatabaseConnection> {
    while (this.#locked) await this.#locked;
    this.#locked = new Promise((resolve) => {
      this.#unlock = resolve;
    });
    return this.#connection;
  }

  async beginTransaction(): Promise<void> {
    await this.#connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  async commitTransaction(): Promise<void> {
    await this.#connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(): Promise<void> {
    await this.#connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(): Promise<void> {
    const unlock = this.#unlock;
    this.#locked = null;
    this.#unlock = null;
    unlock?.();
  }

  async destroy(): Promise<void> {
    this.#statements.close();
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #statements: Statements;
  readonly #lockWaitMs: number;

  constructor(statements: Statements, lockWaitMs: number) {
    this.#statements = statements;
    this.#lockWaitMs = lockWaitMs;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.#statements.prepare(query.sql);
    const params = query.parameters as unknown[];
    for (let attempt = 0, deadline = 0; ; attempt++) {
      try {
        if (stmt.reader) return { rows: stmt.all(params) as R[] };
        const { changes, lastInsertRowid } = stmt.run(params);
        return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
      } catch (e) {
        // Inside a transaction this connection already holds the write lock (BEGIN IMMEDIATE): a
        // busy answer there is not a wait, and starting the statement again would not help.
        if (!isBusy(e) || this.#statements.sqlite.inTransaction) throw e;
        if (attempt === 0) deadline = Date.now() + this.#lockWaitMs;
        else if (Date.now() > deadline) throw e;
        await pause(attempt);
      }
    }
  }

  // biome-ignore lint/correctness/useYield: the service never streams; Kysely's interface asks for it.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("Streaming queries are not supported on SQLite here");
  }
}

/** The first retries go on the next turn of the event loop; later ones wait 1, 2, then 4 ms. */
function pause(attempt: number): Promise<void> {
  if (attempt < 3) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Math.min(4, 2 ** (attempt - 3))));
}
