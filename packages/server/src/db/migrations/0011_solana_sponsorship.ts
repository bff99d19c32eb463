import type { Kysely, Migration } from "kysely";

export const m0011: Migration = {
  async up(db: Kysely<unknown>) {
    // Solana fee sponsorship: one row per transaction the fee payer signed, keyed by its signature (the
    // transaction id). Daily totals go to sponsorship_usage like the EVM policies' (fee lamports in `wei`).
    await db.schema
      .createTable("solana_sponsorship_spend")
      .addColumn("signature", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("policy_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("user_address", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("fee_lamports", "text", (c) => c.notNull())
      .addColumn("lamports", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("solana_sponsorship_spend_app_day")
      .on("solana_sponsorship_spend")
      .columns(["app_id", "day"])
      .execute();
  },
};
