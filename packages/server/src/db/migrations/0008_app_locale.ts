import type { Kysely, Migration } from "kysely";

export const m0008: Migration = {
  async up(db: Kysely<unknown>) {
    // The language of the app's mails (codes, links, security notices).
    await db.schema
      .alterTable("apps")
      .addColumn("locale", "text", (c) => c.notNull().defaultTo("en"))
      .execute();
  },
};
