import { type Kysely, type Migration, sql } from "kysely";

export const m0023: Migration = {
  async up(db: Kysely<unknown>) {
    // The retention sweeper (limits/retention.ts) deletes in small batches, each picking its rows through
    // one of these indexes: a batch reads what it deletes, never the whole table. Activities are swept
    // through activities_status_created, security events by app through this index on time alone.
    const byColumn = async (table: string, column: string) =>
      db.schema.createIndex(`${table}_${column}`).on(table).column(column).execute();
    for (const table of ["otps", "contact_otps", "mfa_challenges", "oauth_requests", "stamp_replays"])
      await byColumn(table, "expires_at");
    await byColumn("rate_limits", "window_start");
    await byColumn("audit_log", "created_at");
    await byColumn("webhook_events", "created_at");
    for (const table of ["sponsorship_spend", "solana_sponsorship_spend", "sponsorship_usage"])
      await byColumn(table, "day");
    // Only session keys expire and are swept: API keys are not in it.
    await db.schema
      .createIndex("api_keys_session_expires")
      .on("api_keys")
      .column("expires_at")
      .where(sql.ref("kind"), "=", sql.lit("session"))
      .execute();
    // Deliveries done with (delivered or failed), by their last change; pending ones are not in it.
    await db.schema
      .createIndex("webhook_deliveries_done")
      .on("webhook_deliveries")
      .column("updated_at")
      .where(sql.ref("status"), "<>", sql.lit("pending"))
      .execute();
  },
};
