import type { Kysely, Migration } from "kysely";

export const m0029: Migration = {
  async up(db: Kysely<unknown>) {
    // An endpoint's opt-in to private and other non-public addresses (features/webhooks/addressPolicy.ts):
    // the delivery worker checks each DNS answer against it. Endpoints stored before it have none.
    await db.schema
      .alterTable("webhook_endpoints")
      .addColumn("allow_private_network", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
