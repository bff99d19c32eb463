import type { Kysely, Migration } from "kysely";

export const m0024: Migration = {
  async up(db: Kysely<unknown>) {
    // Permission grants (features/grants): what a user lets the app's backend sign for them. The caps
    // are counted on the grant's own row, changed only by a conditional update on its `version` (a
    // compare-and-set), so concurrent signatures on any instance never count past a cap.
    await db.schema
      .createTable("grants")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("permissions", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("max_operations", "integer")
      .addColumn("operations_used", "integer", (c) => c.notNull())
      .addColumn("value_per_transaction", "text", (c) => c.notNull())
      .addColumn("value_per_day", "text")
      .addColumn("spend_day", "text")
      .addColumn("value_spent", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema
      .createIndex("grants_user_created")
      .on("grants")
      .columns(["user_id", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("grants_app_created")
      .on("grants")
      .columns(["app_id", "created_at", "id"])
      .execute();
    // A signature made under a grant names it; the user's grants page lists them by grant.
    await db.schema.alterTable("activities").addColumn("grant_id", "text").execute();
    await db.schema
      .createIndex("activities_grant_created")
      .on("activities")
      .columns(["grant_id", "created_at"])
      .execute();
    // The app's server keys (JSON [{name, publicKey}]): who may call the backend API for it.
    await db.schema.alterTable("apps").addColumn("server_keys", "text").execute();
  },
};
