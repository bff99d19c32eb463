import type { Kysely, Migration } from "kysely";

export const m0002: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("apps").addColumn("webauthn_rp_id", "text").execute();
    await db.schema.alterTable("apps").addColumn("webauthn_origins", "text").execute();
    // An email given at passkey sign-up is unproven: kept for contact, never used to sign in.
    await db.schema.alterTable("users").addColumn("unverified_email", "text").execute();
    await db.schema
      .createTable("authenticators")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("credential_id", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("counter", "bigint", (c) => c.notNull())
      .addColumn("transports", "text", (c) => c.notNull())
      .addColumn("aaguid", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .addUniqueConstraint("authenticators_app_credential", ["app_id", "credential_id"])
      .execute();
    await db.schema.createIndex("authenticators_user").on("authenticators").column("user_id").execute();
    await db.schema
      .createTable("mfa_factors")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("sealed_secret", "text", (c) => c.notNull())
      .addColumn("verified_at", "bigint")
      .addColumn("last_step", "bigint", (c) => c.notNull())
      .addColumn("failed_attempts", "integer", (c) => c.notNull())
      .addColumn("locked_until", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("mfa_factors_user").on("mfa_factors").column("user_id").execute();
    await db.schema
      .createTable("mfa_challenges")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("stamp_replays")
      .addColumn("hash", "text", (c) => c.primaryKey())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
