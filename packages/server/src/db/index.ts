import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { migrateToLatest } from "./migrations";
import type { Database } from "./schema";

export type { Database } from "./schema";
export type Db = Kysely<Database>;
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
 * SQLite runs in WAL mode with a busy timeout so several processes can share one file.
 */
export function openDatabase(url: string, options: { poolSize?: number } = {}): OpenedDatabase {
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
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  if (url !== ":memory:") mkdirSync(dirname(url), { recursive: true });
  const sqlite = new SQLite(url);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
  return { db, kind: "sqlite", close: () => db.destroy() };
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
