/**
 * Vitest's global setup for the tests on PostgreSQL: names the run's template database
 * (LATCHKEY_TEST_PG_TEMPLATE, `latchkey_tpl_<pid>`), which the first scenario harness that needs one makes
 * by running every migration (packages/server/test/helpers.ts), and which each harness's database is then
 * copied from (CREATE DATABASE … TEMPLATE): the migrations run once per run instead of once per harness
 * (~2 s of DDL each). Tests of migrating itself (instances racing to migrate, `latchkey migrate`, backups)
 * still start from an empty database. The template goes when the run ends, and templates of runs that
 * ended without their teardown go at the next start.
 */
import pg from "pg";

const ADMIN_URL = process.env.LATCHKEY_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

async function withAdmin(work: (c: pg.Client) => Promise<void>): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    await work(c);
  } catch {
    // No PostgreSQL here: the tests that need it say so themselves.
  } finally {
    await c.end().catch(() => {});
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0); // only asks whether that run is still going
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

async function dropTemplates(which: (pid: number) => boolean): Promise<void> {
  await withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname ~ '^latchkey_tpl_[0-9]+(_wip)?$'",
    );
    for (const { datname } of rows) {
      const pid = Number(/^latchkey_tpl_(\d+)/.exec(datname)?.[1]);
      if (which(pid)) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  });
}

/** One template per run, however many projects name this setup (service, fallback). */
const RUN = Symbol.for("latchkey.testPgTemplate");
type Shared = { [RUN]?: { users: number } };

export default async function setup(): Promise<() => Promise<void>> {
  const shared = globalThis as Shared;
  const run = shared[RUN];
  if (run) run.users++;
  else {
    shared[RUN] = { users: 1 };
    await dropTemplates((pid) => pid !== process.pid && !running(pid));
    // The test workers start after this, with this environment.
    process.env.LATCHKEY_TEST_PG_TEMPLATE = `latchkey_tpl_${process.pid}`;
  }
  return async () => {
    const current = shared[RUN];
    if (current && --current.users > 0) return;
    delete shared[RUN];
    await dropTemplates((pid) => pid === process.pid);
  };
}
