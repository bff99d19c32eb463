import type { Kysely, Migration } from "kysely";

export const m0009: Migration = {
  async up(db: Kysely<unknown>) {
    // Gas sponsorship: the app's policies, the service's own keys (the paymaster signer, sealed), and
    // what sponsored operations reserved, per operation and per day.
    await db.schema.alterTable("apps").addColumn("sponsorship", "text").execute();
    await db.schema
      .createTable("service_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("purpose", "text", (c) => c.notNull().unique())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("sealed_key", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("sponsorship_spend")
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      .addColumn("sender", "text", (c) => c.notNull())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("policy_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("wei", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("sponsorship_spend_pk", ["chain_id", "sender", "nonce"])
      .execute();
    await db.schema
      .createIndex("sponsorship_spend_app_day")
      .on("sponsorship_spend")
      .columns(["app_id", "day"])
      .execute();
    await db.schema
      .createTable("sponsorship_usage")
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("policy_id", "text", (c) => c.notNull())
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("operations", "integer", (c) => c.notNull())
      .addColumn("wei", "text", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("sponsorship_usage_pk", ["app_id", "policy_id", "scope", "day"])
      .execute();
  },
};
