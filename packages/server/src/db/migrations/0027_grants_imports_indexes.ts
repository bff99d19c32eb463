import { type Kysely, type Migration, sql } from "kysely";

export const m0027: Migration = {
  async up(db: Kysely<unknown>) {
    // The retention sweeper (limits/retention.ts) also deletes import keys long expired (used or not) and
    // grants that ended (expired or revoked) longer ago than the activities made under them are kept.
    await db.schema.createIndex("import_keys_expires").on("import_keys").column("expires_at").execute();
    await db.schema.createIndex("grants_expires").on("grants").column("expires_at").execute();
    await db.schema.createIndex("grants_revoked").on("grants").column("revoked_at").execute();
    // Only signatures made under a grant name one: the rest (nearly all) need no entry in its index, and
    // every signature's insert skips it (a grant's activities are still found by `grant_id = ?`).
    await db.schema.dropIndex("activities_grant_created").execute();
    await db.schema
      .createIndex("activities_grant_created")
      .on("activities")
      .columns(["grant_id", "created_at"])
      .where(sql.ref("grant_id"), "is not", sql.lit(null))
      .execute();
  },
};
