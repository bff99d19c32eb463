import type { Kysely, Migration } from "kysely";

export const m0014: Migration = {
  async up(db: Kysely<unknown>) {
    // A user's own security events, newest first (query list_audit_events).
    await db.schema
      .createIndex("audit_log_user_created")
      .on("audit_log")
      .columns(["user_id", "created_at"])
      .execute();
  },
};
