import type { Kysely, Migration } from "kysely";

export const m0012: Migration = {
  async up(db: Kysely<unknown>) {
    // How a session key came to be (email_code, magic_link, passkey, totp, oauth; null for keys made by
    // another key): wallet export counts a session from a recent email, passkey or TOTP sign-in as fresh.
    await db.schema.alterTable("api_keys").addColumn("signed_in_by", "text").execute();
  },
};
