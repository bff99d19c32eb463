import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./index";

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
