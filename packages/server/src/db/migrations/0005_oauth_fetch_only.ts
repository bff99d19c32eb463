import type { Kysely, Migration } from "kysely";

export const m0005: Migration = {
  async up(db: Kysely<unknown>) {
    // A token fetched while signed in (FETCHED_ID_TOKEN_ONLY) may only be linked from the browser
    // whose target key it was fetched for.
    await db.schema
      .alterTable("oauth_requests")
      .addColumn("fetch_only", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
