import { type Kysely, type Migration, sql } from "kysely";

export const m0017: Migration = {
  async up(db: Kysely<unknown>) {
    // What waits for an admin (`latchkey activity list`, approvals), oldest first, without reading every
    // signature ever made: a partial index holds only the held rows, so the signing path's inserts
    // (completed or refused) never touch it.
    await db.schema
      .createIndex("activities_held")
      .on("activities")
      .column("created_at")
      .where(sql.ref("status"), "=", sql.lit("ACTIVITY_STATUS_CONSENSUS_NEEDED"))
      .execute();
  },
};
