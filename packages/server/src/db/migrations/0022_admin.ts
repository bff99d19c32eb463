import type { Kysely, Migration } from "kysely";

export const m0022: Migration = {
  async up(db: Kysely<unknown>) {
    // The admin API (features/admin): a user an app admin disabled can neither sign in nor sign; the
    // lists it pages through, each on an index (users of an app by sign-up, a user by address, held or
    // failed activities by time, an app's security log by time).
    await db.schema.alterTable("users").addColumn("disabled_at", "bigint").execute();
    await db.schema
      .createIndex("users_app_created")
      .on("users")
      .columns(["app_id", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("wallet_accounts_address_key")
      .on("wallet_accounts")
      .column("address_key")
      .execute();
    await db.schema
      .createIndex("activities_created")
      .on("activities")
      .columns(["created_at", "id"])
      .execute();
    await db.schema
      .createIndex("activities_status_created")
      .on("activities")
      .columns(["status", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("audit_log_app_created")
      .on("audit_log")
      .columns(["app_id", "created_at", "id"])
      .execute();
  },
};
