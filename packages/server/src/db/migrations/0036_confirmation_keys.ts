import type { Kysely, Migration } from "kysely";

export const m0036: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 46, enforced confirmations: the public key (uncompressed P-256, hex) of the confirmation key
    // the auth frame registered for this session; null until it registers one (keyManagement/confirmation).
    await db.schema.alterTable("api_keys").addColumn("confirmation_key", "text").execute();
  },
};
