import type { Kysely, Migration } from "kysely";

export const m0003: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("apps").addColumn("oauth_providers", "text").execute();
    await db.schema.alterTable("apps").addColumn("oauth_redirect_urls", "text").execute();
    await db.schema
      .createTable("oauth_requests")
      .addColumn("request_key", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("sealed_verifier", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("id_token_hash", "text")
      .addColumn("linked_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("oauth_requests_token")
      .on("oauth_requests")
      .column("id_token_hash")
      .execute();
    await db.schema
      .createTable("user_oauth_providers")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("provider_name", "text", (c) => c.notNull())
      .addColumn("issuer", "text", (c) => c.notNull())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("email", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("user_oauth_providers_identity", ["app_id", "issuer", "subject"])
      .execute();
    await db.schema
      .createIndex("user_oauth_providers_user")
      .on("user_oauth_providers")
      .column("user_id")
      .execute();
  },
};
