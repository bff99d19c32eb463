import type { Db } from "../db";
import { type Retention, retentionSchema, sweepRetention } from "./retention";

const DEFAULTS = retentionSchema.parse({});

/** Expired rows are kept this long after they expire by default (late answers still get a clear "expired"). */
export const SWEEP_GRACE_MS = DEFAULTS.expiredGraceHours * 60 * 60 * 1000;
/** How often a running service sweeps by default (`retention.intervalSeconds`). */
export const SWEEP_INTERVAL_MS = DEFAULTS.intervalSeconds * 1000;

/**
 * Deletes what can never be used again and what is past its retention (limits/retention.ts): one-time
 * codes, MFA challenges, prepared social sign-ins, SIWE nonces and replay records past their life (plus
 * the grace), rate-limit windows long closed, expired sessions, old activities, audit events, webhook
 * deliveries and sponsorship spend. Without it these tables grow with every request, an attacker's too.
 * Returns the rows deleted per table.
 */
export async function sweepExpired(
  db: Db,
  now: number,
  windowSeconds: number,
  retention: Retention = DEFAULTS,
  shouldStop?: () => boolean,
): Promise<Record<string, number>> {
  const report = await sweepRetention(db, {
    now,
    windowSeconds,
    retention,
    ...(shouldStop ? { shouldStop } : {}),
  });
  return report.deleted;
}
