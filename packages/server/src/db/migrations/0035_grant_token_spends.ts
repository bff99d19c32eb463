import type { Kysely, Migration } from "kysely";

export const m0035: Migration = {
  async up(db: Kysely<unknown>) {
    // Token limits of grants (features/grants/tokenLimits.ts): one row per token a signature under the
    // grant can move, with when. Rolling windows (24 h, 7 d, 30 d) are summed from these rows exactly —
    // a spend stops counting at the millisecond its window passes it, which per-period buckets cannot
    // say. Rows are written in the same transaction as the grant's compare-and-set on `version`, so
    // concurrent signatures on any instance never count past a limit; they go with their grant.
    await db.schema
      .createTable("grant_token_spends")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("grant_id", "text", (c) => c.notNull().references("grants.id").onDelete("cascade"))
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      /** Lower-case token address, or "native". */
      .addColumn("token", "text", (c) => c.notNull())
      /** Decimal, in the token's smallest unit (up to 2^256 - 1: text, summed by the service). */
      .addColumn("amount", "text", (c) => c.notNull())
      /** The signature it was counted for (a reservation given back deletes its rows). */
      .addColumn("reservation_id", "text", (c) => c.notNull())
      .addColumn("spent_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("grant_token_spends_window")
      .on("grant_token_spends")
      .columns(["grant_id", "chain_id", "token", "spent_at"])
      .execute();
    await db.schema
      .createIndex("grant_token_spends_reservation")
      .on("grant_token_spends")
      .column("reservation_id")
      .execute();
  },
};
