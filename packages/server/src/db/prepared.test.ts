import { describe, expect, it } from "vitest";
import { openDatabase } from "./index";
import { prepared, rowSlots } from "./prepared";

describe("prepared queries", () => {
  it("compile once and run with new values, on the database and in a transaction", async () => {
    const { db, close } = openDatabase(":memory:");
    try {
      await db.schema
        .createTable("t")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("n", "integer", (c) => c.notNull())
        .addColumn("note", "text")
        .execute();
      const insert = prepared((d, $) =>
        (d as unknown as import("kysely").Kysely<{ t: { id: string; n: number; note: string | null } }>)
          .insertInto("t")
          .values({ ...rowSlots($, ["id", "n"] as const), note: "fixed" })
          .onConflict((oc) => oc.column("id").doNothing())
          .returning("id"),
      );
      expect(await insert(db, { id: "a", n: 1 })).toEqual([{ id: "a" }]);
      expect(await insert(db, { id: "a", n: 2 })).toEqual([]);
      await db.transaction().execute(async (trx) => {
        expect(await insert(trx, { id: "b", n: 3 })).toEqual([{ id: "b" }]);
      });
      const rows = await (
        db as unknown as import("kysely").Kysely<{ t: { id: string; n: number; note: string } }>
      )
        .selectFrom("t")
        .selectAll()
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: "a", n: 1, note: "fixed" },
        { id: "b", n: 3, note: "fixed" },
      ]);
      await expect(insert(db, { id: "c" })).rejects.toThrow(/no value for n/);
    } finally {
      await close();
    }
  });
});
