import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { type Generated, Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteDialect } from "./sqliteDriver";

interface Db {
  t: { id: Generated<number>; v: string };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A file two connections share, as two service processes would: `other` is the other process. */
function shared(lockWaitMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), "lk-sqlite-"));
  const file = join(dir, "db.sqlite");
  const other = new SQLite(file);
  other.pragma("journal_mode = WAL");
  other.exec("create table t (id integer primary key, v text not null)");
  const mine = new SQLite(file);
  const db = new Kysely<Db>({
    dialect: sqliteDialect(
      { sqlite: mine, prepare: (s) => mine.prepare(s), close: () => mine.close() },
      lockWaitMs === undefined ? {} : { lockWaitMs },
    ),
  });
  cleanups.push(() => {
    other.close();
    if (mine.open) mine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, other };
}

/** Counts event-loop turns while `work` runs: a loop stopped inside SQLite counts none. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    return { result: await work, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe("sqliteDialect: another process's write lock", () => {
  it("a transaction waits for it without stopping the event loop, then commits", async () => {
    const { db, other } = shared();
    other.exec("begin immediate");
    other.prepare("insert into t (v) values ('theirs')").run();
    setTimeout(() => other.exec("commit"), 60);
    const { ticks } = await ticksDuring(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ v: "mine" }).execute();
        return trx.selectFrom("t").select("v").orderBy("id").execute();
      }),
    );
    expect(ticks).toBeGreaterThan(0);
    expect((await db.selectFrom("t").select("v").orderBy("id").execute()).map((r) => r.v)).toEqual([
      "theirs",
      "mine",
    ]);
  });

  it("a statement outside a transaction waits the same way", async () => {
    const { db, other } = shared();
    other.exec("begin immediate");
    // The commit is a timer: it can only run if the wait leaves the event loop free. A loop held
    // inside SQLite's busy handler would reach it only after giving up with SQLITE_BUSY.
    let committedAt = 0;
    setTimeout(() => {
      other.exec("commit");
      committedAt = performance.now();
    }, 40);
    const { result, ticks } = await ticksDuring(
      db
        .insertInto("t")
        .values({ v: "alone" })
        .returning("id")
        .executeTakeFirstOrThrow()
        .then((row) => ({ row, at: performance.now() })),
    );
    expect(committedAt).toBeGreaterThan(0);
    expect(result.at).toBeGreaterThanOrEqual(committedAt);
    // Timers ran during the wait (how many depends on the machine's load, so only "some").
    expect(ticks).toBeGreaterThan(0);
    expect(result.row.id).toBe(1);
  });

  it("gives up with SQLITE_BUSY after the wait, and the transaction leaves nothing", async () => {
    const { db, other } = shared(80);
    other.exec("begin immediate");
    await expect(
      db.transaction().execute((trx) => trx.insertInto("t").values({ v: "late" }).execute()),
    ).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    other.exec("rollback");
    expect(await db.selectFrom("t").selectAll().execute()).toEqual([]);
    // The connection is whole again: the next transaction commits.
    await db.transaction().execute((trx) => trx.insertInto("t").values({ v: "next" }).execute());
    expect(await db.selectFrom("t").select("v").execute()).toEqual([{ v: "next" }]);
  });

  it("reads do not wait for a writer, and a failed statement rolls its transaction back", async () => {
    const { db, other } = shared();
    await db.insertInto("t").values({ v: "a" }).execute();
    other.exec("begin immediate");
    other.prepare("insert into t (v) values ('uncommitted')").run();
    // WAL: a reader sees the last commit and never waits.
    expect(await db.selectFrom("t").select("v").execute()).toEqual([{ v: "a" }]);
    other.exec("rollback");
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ v: "b" }).execute();
        await sql`insert into missing_table values (1)`.execute(trx);
      }),
    ).rejects.toThrow(/no such table/);
    expect(await db.selectFrom("t").select("v").execute()).toEqual([{ v: "a" }]);
  });
});
