import type { Db } from "../db";

/**
 * The context a grant's user share is sealed under (docs/split-custody.md §5.1): it opens for this
 * grant's row only.
 */
export const grantShareContext = (grantId: string) => `grant_share:${grantId}`;

/**
 * Destroys the user shares of grants expired by `now` (their rows stay "active" past `expires_at`;
 * revoking destroys a grant's share itself). Run by every retention sweep before it deletes anything,
 * through the partial index `grants_held_share_expires`. Returns how many it destroyed.
 */
export async function destroyExpiredGrantShares(db: Db, now: number): Promise<number> {
  const result = await db
    .updateTable("grants")
    .set({ sealed_user_share: null })
    .where("sealed_user_share", "is not", null)
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Destroys the share one ended grant still holds (found revoked or expired when a signature read it). */
export async function destroyGrantShare(db: Db, grantId: string): Promise<void> {
  await db
    .updateTable("grants")
    .set({ sealed_user_share: null })
    .where("id", "=", grantId)
    .where("sealed_user_share", "is not", null)
    .execute();
}
