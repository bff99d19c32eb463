import { type Kysely, type Migration, sql } from "kysely";

/**
 * Passkeys and factors a later social sign-in added under the `signup` proof, before that proof was bound
 * to the sign-up's own session (issue 48, W5): those added while the user already had more than one
 * social session. They stay ways to sign in, but no longer count as a step-up proof (`added_with` null).
 * A legitimate one (added by the sign-up session, the account's only social session then) is kept.
 */
export async function demoteLaterSignupProofs<DB>(db: Kysely<DB>): Promise<void> {
  for (const table of ["authenticators", "mfa_factors"] as const) {
    await sql`UPDATE ${sql.table(table)} SET added_with = NULL
      WHERE added_with = 'signup'
        AND (SELECT COUNT(*) FROM api_keys k
             WHERE k.user_id = ${sql.table(table)}.user_id
               AND k.signed_in_by = 'oauth'
               AND k.created_at <= ${sql.table(table)}.created_at) > 1`.execute(db);
  }
}

export const m0028: Migration = {
  async up(db: Kysely<unknown>) {
    // The session a social sign-up made (sessions/stepUp.ts, rule 5): only that one counts as fresh on
    // a minutes-old account, never a later social sign-in to it. Null for accounts made before, and for
    // those made another way (their sign-in sessions are fresh on their own).
    await db.schema.alterTable("users").addColumn("signup_session_id", "text").execute();
    await demoteLaterSignupProofs(db);
  },
};
