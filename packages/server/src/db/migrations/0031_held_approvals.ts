import type { Kysely, Migration } from "kysely";

export const m0031: Migration = {
  async up(db: Kysely<unknown>) {
    // Split custody (docs/split-custody.md §7): an app admin's approval of a split wallet's held
    // signature is recorded, not signed; the activity stays held until the user's device completes it
    // before `approval_expires_at`. Null for every other activity.
    await db.schema.alterTable("activities").addColumn("approved_by", "text").execute();
    await db.schema.alterTable("activities").addColumn("approved_at", "bigint").execute();
    await db.schema.alterTable("activities").addColumn("approval_expires_at", "bigint").execute();
  },
};
