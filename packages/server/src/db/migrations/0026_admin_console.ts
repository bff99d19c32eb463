import type { Kysely, Migration } from "kysely";

export const m0026: Migration = {
  async up(db: Kysely<unknown>) {
    // The admin console (features/admin/console): people who administer one app each, the one-time links
    // that enrol their passkeys (only the token's hash is kept), those passkeys, and the short-lived
    // session keys the browser makes at sign-in, which stamp the admin API as an admin key does.
    await db.schema
      .createTable("console_admins")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .addUniqueConstraint("console_admins_app_name", ["app_id", "name"])
      .execute();
    await db.schema
      .createTable("console_enrolments")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("admin_id", "text", (c) => c.notNull().references("console_admins.id").onDelete("cascade"))
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("console_passkeys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("admin_id", "text", (c) => c.notNull().references("console_admins.id").onDelete("cascade"))
      .addColumn("credential_id", "text", (c) => c.notNull().unique())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("counter", "bigint", (c) => c.notNull())
      .addColumn("transports", "text", (c) => c.notNull())
      .addColumn("rp_id", "text", (c) => c.notNull())
      .addColumn("origin", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .execute();
    await db.schema
      .createTable("console_sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("admin_id", "text", (c) => c.notNull().references("console_admins.id").onDelete("cascade"))
      .addColumn("public_key", "text", (c) => c.notNull().unique())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("console_sessions_admin").on("console_sessions").column("admin_id").execute();
    // What the retention sweeper deletes (limits/retention.ts): links and sessions long expired.
    await db.schema
      .createIndex("console_enrolments_expires")
      .on("console_enrolments")
      .column("expires_at")
      .execute();
    await db.schema
      .createIndex("console_sessions_expires")
      .on("console_sessions")
      .column("expires_at")
      .execute();
    // The console's daily charts: an app's sign-ins and failed sign-ins by time, without reading its
    // other events.
    await db.schema
      .createIndex("audit_log_app_event_created")
      .on("audit_log")
      .columns(["app_id", "event", "created_at"])
      .execute();
  },
};
