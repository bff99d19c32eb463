import type { Kysely, Migration } from "kysely";

export const m0001: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("apps")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("org_id", "text", (c) => c.notNull().unique())
      .addColumn("email_mode", "text", (c) => c.notNull())
      .addColumn("allowed_origins", "text", (c) => c.notNull())
      .addColumn("magic_link_urls", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("app_api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
      .addColumn("key_hash", "text", (c) => c.notNull().unique())
      .addColumn("key_prefix", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema
      .createTable("data_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("wrapped_key", "text", (c) => c.notNull())
      .addColumn("kek_id", "text", (c) => c.notNull())
      .addColumn("active", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("users")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull().unique())
      .addColumn("app_id", "text", (c) => c.notNull().references("apps.id"))
      .addColumn("email", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("users_app_email", ["app_id", "email"])
      .execute();
    await db.schema
      .createTable("wallets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("sealed_mnemonic", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("wallets_org").on("wallets").column("org_id").execute();
    await db.schema
      .createTable("wallet_accounts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("wallet_id", "text", (c) => c.notNull().references("wallets.id"))
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("curve", "text", (c) => c.notNull())
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("address_format", "text", (c) => c.notNull())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("address_key", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("sealed_private_key", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("wallet_accounts_org_address", ["org_id", "address_key"])
      .execute();
    await db.schema.createIndex("wallet_accounts_wallet").on("wallet_accounts").column("wallet_id").execute();
    await db.schema
      .createTable("api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("api_keys_public_key").on("api_keys").column("public_key").execute();
    await db.schema.createIndex("api_keys_user").on("api_keys").column("user_id").execute();
    await db.schema
      .createTable("otps")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("code_hash", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("activities")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull().unique())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("intent", "text", (c) => c.notNull())
      .addColumn("result", "text", (c) => c.notNull())
      .addColumn("failure", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("activities_org")
      .on("activities")
      .columns(["org_id", "created_at"])
      .execute();
    await db.schema
      .createTable("rate_limits")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("window_start", "bigint", (c) => c.notNull())
      .addColumn("count", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("audit_log")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text")
      .addColumn("user_id", "text")
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("ip", "text")
      .addColumn("details", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
