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
    // The same for each user under their app's signing policy (`signingPolicy.tokenLimits`:
    // keyManagement/policies/policyTokenLimits.ts): their spends, and a row per user whose `version`
    // is the compare-and-set the spends are written with. A spend names the activity it was counted for
    // (its body's fingerprint), so a body sent again is not counted twice.
    await db.schema
      .createTable("user_token_spends")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      .addColumn("token", "text", (c) => c.notNull())
      .addColumn("amount", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("spent_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("user_token_spends_window")
      .on("user_token_spends")
      .columns(["app_id", "org_id", "chain_id", "token", "spent_at"])
      .execute();
    await db.schema
      .createIndex("user_token_spends_fingerprint")
      .on("user_token_spends")
      .column("fingerprint")
      .execute();
    await db.schema
      .createTable("user_token_counters")
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("user_token_counters_pk", ["app_id", "org_id"])
      .execute();
  },
};
