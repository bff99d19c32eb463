import { type Kysely, type Migration, sql } from "kysely";

export const m0018: Migration = {
  async up(db: Kysely<unknown>) {
    // Which step-up proof (a fresh sign-in) each passkey and second factor was added with (issue 30): one
    // added without is never accepted as a proof. Rows from before are kept as "legacy" and still
    // count (passkeys from a passkey sign-up among them); an unverified factor must be asked for again.
    await db.schema.alterTable("authenticators").addColumn("added_with", "text").execute();
    await db.schema.alterTable("mfa_factors").addColumn("added_with", "text").execute();
    await sql`UPDATE authenticators SET added_with = 'legacy'`.execute(db);
    await sql`UPDATE mfa_factors SET added_with = 'legacy' WHERE verified_at IS NOT NULL`.execute(db);
  },
};
