import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, PG_ADMIN_URL } from "../../test/helpers";
import { openDatabase } from "./index";
import { migrateToLatest } from "./migrations/index";
import { walFile } from "./walFile";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("SQLite write-ahead log", () => {
  it("is checkpointed by a background thread, not inside the commits of the serving connection", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-db-"));
    dirs.push(dir);
    const file = join(dir, "wal.db");
    const opened = openDatabase(file);
    try {
      const { db } = opened;
      const setting = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      expect(setting.rows[0]?.wal_autocheckpoint).toBe(0);
      await sql`create table t (id integer primary key, v text)`.execute(db);
      const before = statSync(file).size;
      // ~3 MB: well past the 1000 pages at which SQLite would checkpoint inside a commit.
      for (let i = 0; i < 60; i++) {
        await db.transaction().execute(async (trx) => {
          for (let j = 0; j < 50; j++) await sql`insert into t (v) values (${"x".repeat(1000)})`.execute(trx);
        });
      }
      // The serving connection never checkpoints, so only the background thread can grow the file.
      await expect
        .poll(() => statSync(file).size, { timeout: 5000, interval: 50 })
        .toBeGreaterThan(before + 2_000_000);
      const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      expect(rows.rows[0]?.n).toBe(3000);
    } finally {
      await opened.close();
    }
  });
});

describe("PostgreSQL connections", () => {
  it("an idle connection the server ends (a restart, pg_terminate_backend) does not stop the process", async () => {
    const database = await freshDatabase("postgres");
    const opened = openDatabase(database.url);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const { db } = opened;
      const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid;
      // The connection is idle in the pool when the server ends it.
      const ended = await admin.query("select pg_terminate_backend($1) as ok", [pid]);
      expect(ended.rows[0].ok).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      const again = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(again.rows[0]?.pid).not.toBe(pid);
    } finally {
      await admin.end();
      await opened.close();
      await database.drop();
    }
  });
});

describe("held activities", () => {
  it.each(["sqlite", "postgres"] as const)(
    "on %s, the list of what waits for an admin reads an index (the held rows' partial one, or status + time), never the table",
    async (kind) => {
      const database = await freshDatabase(kind);
      const opened = openDatabase(database.url);
      try {
        const { db } = opened;
        await migrateToLatest(db as never);
        const held = sql`select id from activities where status = 'ACTIVITY_STATUS_CONSENSUS_NEEDED' order by created_at`;
        if (kind === "sqlite") {
          const plan = await sql<{ detail: string }>`explain query plan ${held}`.execute(db);
          expect(plan.rows.map((r) => r.detail).join("\n")).toMatch(
            /USING (COVERING )?INDEX activities_(held|status_created)/,
          );
        } else {
          // On an empty table the planner would scan anyway; forbid that to see the index is usable.
          await db.connection().execute(async (c) => {
            await sql`set enable_seqscan = off`.execute(c);
            const plan = await sql<{ "QUERY PLAN": string }>`explain ${held}`.execute(c);
            expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(
              /activities_(held|status_created)/,
            );
          });
        }
        const index = sql`select id from activities where status = 'ACTIVITY_STATUS_COMPLETED'`;
        if (kind === "sqlite") {
          // A completed signature is not in it: the signing path's inserts never write it.
          const plan = await sql<{ detail: string }>`explain query plan ${index}`.execute(db);
          expect(plan.rows.map((r) => r.detail).join("\n")).not.toMatch(/activities_held/);
        }
      } finally {
        await opened.close();
        await database.drop();
      }
    },
  );
});

describe("SQLite write-ahead log under writes that never pause", () => {
  it("starts over once it passes its limit, so it stays bounded while the writes go on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-db-"));
    dirs.push(dir);
    const file = join(dir, "busy.db");
    // A limit of 256 frames (~1 MiB) instead of the service's ~64 MiB, to keep the test short.
    const opened = openDatabase(file, { walResetFrames: 256 });
    try {
      const { db } = opened;
      await sql`create table t (id integer primary key, v text)`.execute(db);
      const walSize = () => walFile(file).bytes;
      const restarts = () => walFile(file).restarts;
      const restartsBefore = restarts();
      // Writes back to back for at least 2 s (tens of MB): PASSIVE checkpoints alone never catch up.
      const started = Date.now();
      let rows = 0;
      // The second half of the run: how many rows it wrote, and how much the log's file grew meanwhile.
      let half: { rows: number; wal: number } | undefined;
      while (rows < 6000 || Date.now() - started < 2000) {
        await db.transaction().execute(async (trx) => {
          for (let j = 0; j < 20; j++) await sql`insert into t (v) values (${"x".repeat(1000)})`.execute(trx);
        });
        rows += 20;
        if (!half && Date.now() - started > 1000) half = { rows, wal: walSize() };
        // The event loop turns between transactions, as a server's does between requests.
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Without the restart the log only grows: the file grows by everything written. With it, the log starts
      // over again and again, and the file is written over from its start: it grows only when two restarts
      // are further apart than ever before (the thread looks every 200 ms, later on a loaded machine).
      expect(restarts() - restartsBefore).toBeGreaterThanOrEqual(2);
      const writtenSinceHalf = (rows - (half?.rows ?? 0)) * 1000;
      expect(walSize()).toBeGreaterThan(0);
      expect(walSize() - (half?.wal ?? 0)).toBeLessThan(writtenSinceHalf / 2);
      const count = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      expect(count.rows[0]?.n).toBe(rows);
    } finally {
      await opened.close();
    }
  });
});
