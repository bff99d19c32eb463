import type { Kysely, Migration } from "kysely";

export const m0015: Migration = {
  async up(db: Kysely<unknown>) {
    // The person's name as a provider gave it at sign-in (Apple gives it on the first authorisation
    // only): kept on the link, and on the request until a linking prompt completes.
    await db.schema.alterTable("user_oauth_providers").addColumn("name", "text").execute();
    await db.schema.alterTable("oauth_requests").addColumn("display_name", "text").execute();
  },
};
