import { type Kysely, type Migration, sql } from "kysely";

export const m0033: Migration = {
  async up(db: Kysely<unknown>) {
    // Split custody, grants (docs/split-custody.md §5.1): the user share a split user's key holder handed
    // over at consent, sealed under the data keys (`grant_share:<grantId>`); null for a service user's
    // grant, and set back to null when the grant is revoked, expires or its user goes.
    await db.schema.alterTable("grants").addColumn("sealed_user_share", "text").execute();
    // The retention sweep finds the shares of expired grants through this (partial: only grants that
    // hold one), however many ended grants are still kept.
    await db.schema
      .createIndex("grants_held_share_expires")
      .on("grants")
      .column("expires_at")
      .where(sql.ref("sealed_user_share"), "is not", null)
      .execute();
  },
};
