/**
 * Throw-away databases for the benchmarks: a SQLite file in the temp directory, or a PostgreSQL database
 * created on `PG_SERVER_URL` and dropped afterwards (also when the bench process dies).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { REPO_ROOT } from "./paths";
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
export const liveDatabases = new Set<string>();

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
export function dropDatabasesSync(names: string[]): void {
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
