import type { Kysely, Migration } from "kysely";

export const m0007: Migration = {
  async up(db: Kysely<unknown>) {
    // An app's backend may authenticate with a JWT (issuer and JWKS per app) instead of an API key.
    await db.schema.alterTable("apps").addColumn("jwt_config", "text").execute();
  },
};
