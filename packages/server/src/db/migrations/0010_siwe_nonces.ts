import type { Kysely, Migration } from "kysely";

export const m0010: Migration = {
  async up(db: Kysely<unknown>) {
    // Sign-In with Ethereum: single-use nonces, each bound to the app, the address (lower case) and the
    // chain it was issued for. used_at is set the first time the nonce is presented, whatever the outcome.
    await db.schema
      .createTable("siwe_nonces")
      .addColumn("nonce", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .execute();
    await db.schema.createIndex("siwe_nonces_expires_at").on("siwe_nonces").column("expires_at").execute();
  },
};
