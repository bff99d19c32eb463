import type { Kysely, Migration } from "kysely";

export const m0006: Migration = {
  async up(db: Kysely<unknown>) {
    // Codes that prove an address before it becomes a sign-in method (init-otp / verify-otp); the
    // verification token they yield is single use (token_used_at).
    await db.schema
      .createTable("contact_otps")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("app_id", "text", (c) => c.notNull())
      .addColumn("contact", "text", (c) => c.notNull())
      .addColumn("code_hash", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("token_used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
