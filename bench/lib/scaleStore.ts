/**
 * Writing the scale benchmark's filler rows fast, and measuring what the database holds afterwards.
 * SQLite: one prepared INSERT per table, each chunk in one transaction, on a connection of its own with
 * a large page cache (the service is stopped meanwhile). PostgreSQL: one multi-row INSERT … SELECT FROM
 * unnest($1::text[], …) per table and chunk, each chunk in one transaction, the next chunk generated
 * while the server writes the last one.
 *
 * The seeded tables' secondary indexes (those not behind a primary key or unique constraint) are dropped
 * for the load and made again at the end, from their own definitions (sqlite_master.sql,
 * pg_get_indexdef): the same index entries for a fraction of the CPU of inserting 10 million random keys
 * one at a time. A built index is packed tighter than one grown by random inserts (PostgreSQL builds at
 * fillfactor 90, SQLite nearly full), so those indexes are somewhat smaller than a live database's.
 */
import { createReadStream } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import type { BenchDatabase } from "./databases";
import { SEED_TABLES, type SeedChunk, type SeedTable, type SeedValue } from "./scaleSeed";

/** Where filler rows go: one chunk at a time, all its tables in one transaction. */
export interface RowWriter {
  write(chunk: SeedChunk): Promise<void>;
  /** Rows of one table outside the chunks (e.g. the app's daily totals). */
  writeRows(table: SeedTable, rows: SeedValue[][]): Promise<void>;
  /** Waits for what is in flight; then the connection is closed. */
  close(): Promise<void>;
}

const columnsOf = (table: SeedTable) => Object.keys(SEED_TABLES[table]);

const SEEDED = Object.keys(SEED_TABLES);

export function sqliteWriter(file: string): RowWriter {
  const db = new Database(file);
  const deferred = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${SEEDED.map(() => "?").join(", ")})`,
    )
    .all(...SEEDED) as { name: string; sql: string }[];
  for (const i of deferred) db.exec(`DROP INDEX ${i.name}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  // The rows are consistent by construction (users before their wallets, the app before its users):
  // no reference lookups per row (better-sqlite3 turns them on by default).
  db.pragma("foreign_keys = OFF");
  // Random keys (ids, fingerprints) land all over the indexes: keep them in memory while loading.
  db.pragma("cache_size = -2000000");
  db.pragma("temp_store = MEMORY");
  const statements = new Map<SeedTable, Database.Statement>();
  const insert = (table: SeedTable) => {
    let s = statements.get(table);
    if (!s) {
      const cols = columnsOf(table);
      s = db.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
      statements.set(table, s);
    }
    return s;
  };
  const writeAll = db.transaction((parts: [SeedTable, SeedValue[][]][]) => {
    for (const [table, rows] of parts) {
      const s = insert(table);
      for (const row of rows) s.run(row);
    }
  });
  return {
    async write(chunk) {
      writeAll(Object.entries(chunk) as [SeedTable, SeedValue[][]][]);
    },
    async writeRows(table, rows) {
      writeAll([[table, rows]]);
    },
    async close() {
      for (const i of deferred) db.exec(i.sql);
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
    },
  };
}

export async function postgresWriter(url: string): Promise<RowWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SET synchronous_commit = off");
  await client.query("SET maintenance_work_mem = '512MB'");
  const { rows: deferred } = await client.query<{ name: string; def: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relname = ANY($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)`,
    [SEEDED],
  );
  for (const i of deferred) await client.query(`DROP INDEX ${i.name}`);
  let inFlight: Promise<void> = Promise.resolve();
  let failed: unknown;
  const insertSql = (table: SeedTable) => {
    const types = Object.values(SEED_TABLES[table]);
    const params = types.map((t, i) => `$${i + 1}::${t}[]`).join(", ");
    return `INSERT INTO ${table} (${columnsOf(table).join(", ")}) SELECT * FROM unnest(${params})`;
  };
  const transpose = (rows: SeedValue[][], width: number) => {
    const cols: SeedValue[][] = Array.from({ length: width }, () => new Array(rows.length));
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as SeedValue[];
      for (let c = 0; c < width; c++) (cols[c] as SeedValue[])[r] = row[c] ?? null;
    }
    return cols;
  };
  const run = async (parts: [SeedTable, SeedValue[][]][]) => {
    await client.query("BEGIN");
    for (const [table, rows] of parts) {
      if (rows.length === 0) continue;
      // Under ~20k rows per statement: the arrays stay a few MB.
      for (let i = 0; i < rows.length; i += 20_000) {
        const part = rows.slice(i, i + 20_000);
        await client.query(insertSql(table), transpose(part, columnsOf(table).length));
      }
    }
    await client.query("COMMIT");
  };
  const enqueue = async (parts: [SeedTable, SeedValue[][]][]) => {
    // One chunk at the server while the caller generates the next.
    await inFlight;
    if (failed) throw failed;
    inFlight = run(parts).catch((e: unknown) => {
      failed = e;
    });
  };
  return {
    write: (chunk) => enqueue(Object.entries(chunk) as [SeedTable, SeedValue[][]][]),
    writeRows: (table, rows) => enqueue([[table, rows]]),
    async close() {
      await inFlight;
      try {
        if (!failed) for (const i of deferred) await client.query(i.def);
      } finally {
        await client.end();
      }
      if (failed) throw failed;
    },
  };
}

/** Rows and bytes (table and its indexes) per table, and the database's whole size. */
export interface StoreSizes {
  tables: Record<string, { rows: number; bytes: number }>;
  totalBytes: number;
  /** SQLite: pages deleted rows left free for new ones (the file does not shrink without VACUUM). */
  freeBytes?: number;
}

const COUNTED = [
  "users",
  "wallets",
  "wallet_accounts",
  "api_keys",
  "otps",
  "audit_log",
  "activities",
  "sponsorship_spend",
  "sponsorship_usage",
  "solana_sponsorship_spend",
  "stamp_replays",
  "rate_limits",
  "contact_otps",
  "mfa_challenges",
  "oauth_requests",
  "siwe_nonces",
  "webhook_events",
  "webhook_deliveries",
  "webhook_attempts",
];

export async function storeSizes(
  kind: BenchDatabase,
  url: string,
  opts: { exactCounts?: boolean } = {},
): Promise<StoreSizes> {
  const tables: StoreSizes["tables"] = {};
  if (kind === "sqlite") {
    const db = new Database(url, { readonly: true });
    try {
      const owner = new Map(
        (
          db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table','index')").all() as {
            name: string;
            tbl_name: string;
          }[]
        ).map((r) => [r.name, r.tbl_name]),
      );
      const bytes = new Map<string, number>();
      for (const r of db.prepare("SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name").all() as {
        name: string;
        b: number;
      }[]) {
        const t = owner.get(r.name) ?? r.name;
        bytes.set(t, (bytes.get(t) ?? 0) + r.b);
      }
      for (const t of COUNTED) {
        const n = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
        tables[t] = { rows: n, bytes: bytes.get(t) ?? 0 };
      }
      const pages = db.pragma("page_count", { simple: true }) as number;
      const size = db.pragma("page_size", { simple: true }) as number;
      const free = db.pragma("freelist_count", { simple: true }) as number;
      return { tables, totalBytes: pages * size, freeBytes: free * size };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const t of COUNTED) {
      const count =
        opts.exactCounts === false
          ? `SELECT reltuples::bigint AS n FROM pg_class WHERE oid = '${t}'::regclass`
          : `SELECT count(*)::bigint AS n FROM ${t}`;
      const n = Number((await client.query<{ n: string }>(count)).rows[0]?.n ?? 0);
      const b = Number(
        (await client.query<{ b: string }>(`SELECT pg_total_relation_size('${t}') AS b`)).rows[0]?.b ?? 0,
      );
      tables[t] = { rows: Math.max(0, n), bytes: b };
    }
    const total = await client.query<{ b: string }>("SELECT pg_database_size(current_database()) AS b");
    return { tables, totalBytes: Number(total.rows[0]?.b ?? 0) };
  } finally {
    await client.end();
  }
}

/** After a bulk load: PostgreSQL vacuums and analyses (what autovacuum does soon after); SQLite: nothing. */
export async function settleAfterLoad(kind: BenchDatabase, url: string): Promise<void> {
  if (kind !== "postgres") return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
    await client.query("CHECKPOINT").catch(() => {});
  } finally {
    await client.end();
  }
}

/** One value read from the service's database (e.g. the app's organisation, the active data key). */
export async function readOne<T>(kind: BenchDatabase, url: string, query: string): Promise<T | undefined> {
  if (kind === "sqlite") {
    const db = new Database(url, { readonly: true });
    try {
      return db.prepare(query).get() as T | undefined;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows[0] as T | undefined;
  } finally {
    await client.end();
  }
}

/**
 * Reads the whole store once so that it sits in the OS's page cache, as a server's working set does after
 * hours of traffic (the bench made it minutes ago, beside other databases, and other work may have pushed
 * it out): SQLite's file, or every table and index of the PostgreSQL database (pg_prewarm, read mode).
 */
export async function prewarm(kind: BenchDatabase, url: string): Promise<void> {
  if (kind === "sqlite") {
    for await (const _chunk of createReadStream(url, { highWaterMark: 1 << 22 })) {
      // read and dropped: the kernel keeps the pages
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_prewarm");
    // Largest first: the small, hot ones (users and their indexes) are read last and stay longest.
    const { rows } = await client.query<{ oid: number }>(
      "SELECT c.oid FROM pg_class c WHERE c.relkind IN ('r', 'i') AND c.relnamespace = 'public'::regnamespace ORDER BY pg_relation_size(c.oid) DESC",
    );
    for (const r of rows) await client.query("SELECT pg_prewarm($1::oid::regclass, 'read')", [r.oid]);
  } finally {
    await client.end();
  }
}
