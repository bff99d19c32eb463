import type { Kysely, Migration } from "kysely";

export const m0004: Migration = {
  async up(db: Kysely<unknown>) {
    // A linking prompt's ID token may only be linked to the account the prompt was for.
    await db.schema.alterTable("oauth_requests").addColumn("link_org_id", "text").execute();
  },
};
