import type { Db } from "../db";

/** Expired rows are kept this long after they expire (late answers still get a clear "expired"). */
export const SWEEP_GRACE_MS = 24 * 60 * 60 * 1000;
/** How often a running service sweeps. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes what can never be used again: one-time codes, MFA challenges, prepared social sign-ins, SIWE
 * nonces and replay records past their life (plus the grace), and rate-limit windows long closed. Without
 * it these tables grow with every attempt, including an attacker's. Returns the rows deleted per table.
 */
export async function sweepExpired(
  db: Db,
  now: number,
  windowSeconds: number,
): Promise<Record<string, number>> {
  const before = now - SWEEP_GRACE_MS;
  const counts: Record<string, number> = {};
  const count = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);
  counts.otps = count(await db.deleteFrom("otps").where("expires_at", "<", before).executeTakeFirst());
  counts.mfa_challenges = count(
    await db.deleteFrom("mfa_challenges").where("expires_at", "<", before).executeTakeFirst(),
  );
  counts.oauth_requests = count(
    await db.deleteFrom("oauth_requests").where("expires_at", "<", before).executeTakeFirst(),
  );
  counts.siwe_nonces = count(
    await db.deleteFrom("siwe_nonces").where("expires_at", "<", before).executeTakeFirst(),
  );
  counts.stamp_replays = count(
    await db.deleteFrom("stamp_replays").where("expires_at", "<", now).executeTakeFirst(),
  );
  counts.rate_limits = count(
    await db
      .deleteFrom("rate_limits")
      .where("window_start", "<", now - 2 * windowSeconds * 1000)
      .executeTakeFirst(),
  );
  return counts;
}
