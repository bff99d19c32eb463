import { type Kysely, type Migration, sql } from "kysely";

export const m0021: Migration = {
  async up(db: Kysely<unknown>) {
    // Webhooks (features/webhooks): endpoints from the apps' config, the outbox of events written with
    // their audit rows, one delivery per event and endpoint (claimed with a lease), and every attempt.
    await db.schema
      .createTable("webhook_endpoints")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("sealed_secret", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("removed_at", "bigint")
      .addUniqueConstraint("webhook_endpoints_app_url", ["app_id", "url"])
      .execute();
    await db.schema
      .createTable("webhook_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("event_id", "text", (c) => c.notNull().references("webhook_events.id"))
      .addColumn("endpoint_id", "text", (c) =>
        c.notNull().references("webhook_endpoints.id").onDelete("cascade"),
      )
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
      .addColumn("give_up_at", "bigint", (c) => c.notNull())
      .addColumn("leased_until", "bigint")
      .addColumn("lease_owner", "text")
      .addColumn("last_status_code", "integer")
      .addColumn("last_error", "text")
      .addColumn("delivered_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("webhook_deliveries_event_endpoint", ["event_id", "endpoint_id"])
      .execute();
    // What is due, without reading what was delivered long ago: only pending rows are in it.
    await db.schema
      .createIndex("webhook_deliveries_due")
      .on("webhook_deliveries")
      .column("next_attempt_at")
      .where(sql.ref("status"), "=", sql.lit("pending"))
      .execute();
    // The delivery log of an app, newest first.
    await db.schema
      .createIndex("webhook_deliveries_app_created")
      .on("webhook_deliveries")
      .columns(["app_id", "created_at"])
      .execute();
    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("delivery_id", "text", (c) =>
        c.notNull().references("webhook_deliveries.id").onDelete("cascade"),
      )
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("started_at", "bigint", (c) => c.notNull())
      .addColumn("duration_ms", "integer", (c) => c.notNull())
      .addColumn("status_code", "integer")
      .addColumn("error", "text")
      .execute();
    await db.schema
      .createIndex("webhook_attempts_delivery")
      .on("webhook_attempts")
      .columns(["delivery_id", "started_at"])
      .execute();
  },
};
