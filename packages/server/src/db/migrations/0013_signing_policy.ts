import type { Kysely, Migration } from "kysely";

export const m0013: Migration = {
  async up(db: Kysely<unknown>) {
    // The app's signing policy (config.ts signingPolicy: rules, rawPayloads, admin keys) as JSON; null
    // when the app has none and every signature is made.
    await db.schema.alterTable("apps").addColumn("signing_policy", "text").execute();
  },
};
