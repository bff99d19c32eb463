import { type Kysely, type Migration, sql } from "kysely";

export const m0019: Migration = {
  async up(db: Kysely<unknown>) {
    // The smart-account kind a user first used ("7702" or "4337", users/smartAccountKind.ts), so that
    // changing an app's default never moves an existing user's address. Users from before 7702 accounts
    // could only have had a SimpleAccount: they stay "4337".
    await db.schema.alterTable("users").addColumn("smart_account_kind", "text").execute();
    await sql`UPDATE users SET smart_account_kind = '4337'`.execute(db);
  },
};
