import { PostgresAdapter, type RawBuilder, sql } from "kysely";
import { z } from "zod";
import { destroyExpiredGrantShares } from "../custody/grantShares";
import type { Db } from "../db";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long rows that grow with use are kept (README "Data retention"). Rows something live still needs
 * are never deleted whatever the setting: a signature waiting for approval, a pending webhook delivery, a
 * session key that has not expired, a rate-limit window still open, today's sponsorship spend.
 */
export const retentionSchema = z
  .object({
    /** Signatures and other activities, from their creation (held ones are kept until decided). */
    activitiesDays: z.number().int().min(1).max(36_500).default(90),
    /** The security log (audit_log): the longest, so that an incident can be traced back a year on. */
    auditLogDays: z.number().int().min(1).max(36_500).default(400),
    /** Webhook deliveries (with their attempts) from their last change once delivered or failed, and events. */
    webhooksDays: z.number().int().min(1).max(36_500).default(30),
    /** Sponsorship spend rows and daily usage totals, from their UTC day (today's always stay). */
    sponsorshipDays: z.number().int().min(2).max(36_500).default(90),
    /** Session keys, from their expiry. */
    sessionsDays: z.number().int().min(1).max(36_500).default(7),
    /**
     * Codes, MFA challenges, prepared social sign-ins and SIWE nonces, from their expiry: a late answer
     * still gets a clear "expired" meanwhile. Replay records go as soon as they expire.
     */
    expiredGraceHours: z.number().int().min(1).max(8_760).default(24),
    /** Rows one statement deletes at most: short statements never hold the database for long. */
    batchSize: z.number().int().min(10).max(10_000).default(1_000),
    /** Pause between two batches, so requests get the database in between. */
    batchPauseMs: z.number().int().min(0).max(60_000).default(20),
    /** How often a running service sweeps. */
    intervalSeconds: z.number().int().min(1).max(86_400).default(600),
  })
  .strict();
export type Retention = z.infer<typeof retentionSchema>;
export type RetentionInput = z.input<typeof retentionSchema>;

/** `activitiesDays` → LATCHKEY_RETENTION_ACTIVITIES_DAYS, and so on for every setting. */
export function retentionEnvName(setting: keyof Retention): string {
  return `LATCHKEY_RETENTION_${setting.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/**
 * The retention settings: defaults, then the config file's `retention` section, then LATCHKEY_RETENTION_*
 * environment variables. Out-of-range values are refused with the setting's name.
 */
export function resolveRetention(
  config: Partial<RetentionInput> | undefined,
  env: NodeJS.ProcessEnv = {},
): Retention {
  const merged: Record<string, unknown> = { ...config };
  for (const setting of Object.keys(retentionSchema.shape) as (keyof Retention)[]) {
    const raw = env[retentionEnvName(setting)];
    if (raw === undefined || raw === "") continue;
    const n = Number(raw);
    if (!Number.isInteger(n)) throw new Error(`${retentionEnvName(setting)} takes a whole number`);
    merged[setting] = n;
  }
  const parsed = retentionSchema.safeParse(merged);
  if (!parsed.success) throw new Error(`Invalid retention: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** One kind of row the sweeper deletes: the table and what makes a row of it deletable. */
interface SweepRule {
  /** Name in the report. */
  name: string;
  table: string;
  /** Uses an index (migrations 0023_retention and earlier), so each batch reads only what it deletes. */
  where: RawBuilder<unknown>;
}

/** `YYYY-MM-DD` of the UTC day `ms` falls in. */
function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function rules(now: number, windowSeconds: number, r: Retention): SweepRule[] {
  const expired = now - r.expiredGraceHours * 60 * 60 * 1000;
  const byExpiry = (table: string): SweepRule => ({
    name: table,
    table,
    where: sql`expires_at < ${expired}`,
  });
  // Today's spend is read by every sponsored operation; a row counts for its day only.
  const sponsorshipDay = utcDay(now - r.sponsorshipDays * DAY_MS);
  const webhooksBefore = now - r.webhooksDays * DAY_MS;
  return [
    byExpiry("otps"),
    byExpiry("contact_otps"),
    byExpiry("mfa_challenges"),
    byExpiry("oauth_requests"),
    byExpiry("siwe_nonces"),
    // Past its expiry a stamp is refused for its age: its replay record protects nothing more.
    { name: "stamp_replays", table: "stamp_replays", where: sql`expires_at < ${now}` },
    // A window two windows old is closed for every instance, whatever their clocks' small differences.
    {
      name: "rate_limits",
      table: "rate_limits",
      where: sql`window_start < ${now - 2 * windowSeconds * 1000}`,
    },
    {
      name: "sessions",
      table: "api_keys",
      where: sql`kind = 'session' and expires_at < ${now - r.sessionsDays * DAY_MS}`,
    },
    {
      name: "activities",
      table: "activities",
      // Only decided ones (activities_status_created): one waiting for an admin's approval, or still being
      // made, stays until it is decided.
      where: sql`status in ('ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED', 'ACTIVITY_STATUS_REJECTED') and created_at < ${now - r.activitiesDays * DAY_MS}`,
    },
    { name: "audit_log", table: "audit_log", where: sql`created_at < ${now - r.auditLogDays * DAY_MS}` },
    {
      // Their attempts go with them (ON DELETE CASCADE, by webhook_attempts_delivery).
      name: "webhook_deliveries",
      table: "webhook_deliveries",
      where: sql`status <> 'pending' and updated_at < ${webhooksBefore}`,
    },
    {
      name: "webhook_events",
      table: "webhook_events",
      where: sql`created_at < ${webhooksBefore} and not exists (select 1 from webhook_deliveries d where d.event_id = webhook_events.id)`,
    },
    { name: "sponsorship_spend", table: "sponsorship_spend", where: sql`day < ${sponsorshipDay}` },
    {
      name: "solana_sponsorship_spend",
      table: "solana_sponsorship_spend",
      where: sql`day < ${sponsorshipDay}`,
    },
    { name: "sponsorship_usage", table: "sponsorship_usage", where: sql`day < ${sponsorshipDay}` },
    // One key per wallet import (keyManagement/activities/importWallet.ts), used or not.
    byExpiry("import_keys"),
    // A grant that ended (expired or revoked) stays listed as long as the activities made under it: every
    // one of them is older than its end.
    {
      name: "grants_expired",
      table: "grants",
      where: sql`expires_at < ${now - r.activitiesDays * DAY_MS}`,
    },
    {
      name: "grants_revoked",
      table: "grants",
      where: sql`revoked_at < ${now - r.activitiesDays * DAY_MS}`,
    },
    // The admin console's enrolment links (used or not) and sessions (features/admin/console).
    byExpiry("console_enrolments"),
    {
      name: "console_sessions",
      table: "console_sessions",
      where: sql`expires_at < ${now - r.sessionsDays * DAY_MS}`,
    },
  ];
}

/** Rows deleted, and how: `batches` statements per table, none deleting more than `maxBatch` rows. */
export interface SweepReport {
  deleted: Record<string, number>;
  batches: Record<string, number>;
  maxBatch: number;
  /** False when `shouldStop` ended the sweep early (the next sweep goes on). */
  complete: boolean;
}

/** What one batch's statement should take at most: on SQLite it runs on the event loop, which waits. */
const STATEMENT_TARGET_MS = 10;
/** The first batch of a table, and the fewest rows a batch asks for (a slow table still shrinks). */
const FIRST_BATCH = 100;
const MIN_BATCH = 10;

/**
 * Deletes what the retention settings let go, table by table, in batches of at most `batchSize` rows
 * with a pause between them. Each batch is one short statement of its own (no transaction around the
 * sweep): on SQLite the write lock is held for one batch only, on PostgreSQL a batch locks only the rows
 * it deletes. Rows are picked through an index and deleted by their physical id (rowid, ctid): a row
 * changed meanwhile (a failed delivery sent again) is not deleted by that batch.
 *
 * On SQLite a batch is sized by time as well: it starts at 100 rows and grows (at most doubling) to what
 * fits in ~10 ms at the last batch's pace, up to `batchSize`; the pause after it is at least as long as it
 * took. There a statement runs on the event loop, and a row of activities costs a delete in each of its
 * indexes: on a 1,000,000-activity store a 1,000-row batch held the event loop ~300 ms, and requests
 * waited for it (bench/soak.ts: sign-payload p99 347 ms while a backlog was swept). PostgreSQL runs the
 * statement in its own process and leaves the index entries to vacuum: batches of `batchSize` there.
 */
export async function sweepRetention(
  db: Db,
  params: {
    now: number;
    windowSeconds: number;
    retention: Retention;
    /** Checked between batches: true stops the sweep (the service is closing). */
    shouldStop?: () => boolean;
  },
): Promise<SweepReport> {
  const { retention, shouldStop } = params;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const report: SweepReport = { deleted: {}, batches: {}, maxBatch: 0, complete: true };
  // Split custody: an expired grant's user share is destroyed whatever the retention (counted as deleted).
  report.deleted.grant_shares = await destroyExpiredGrantShares(db, params.now);
  for (const rule of rules(params.now, params.windowSeconds, retention)) {
    const table = sql.table(rule.table);
    const statement = (limit: number) =>
      postgres
        ? sql`delete from ${table} where ctid = any(array(select ctid from ${table} where ${rule.where} limit ${limit}))`
        : sql`delete from ${table} where rowid in (select rowid from ${table} where ${rule.where} limit ${limit})`;
    report.deleted[rule.name] = 0;
    report.batches[rule.name] = 0;
    let limit = postgres ? retention.batchSize : Math.min(FIRST_BATCH, retention.batchSize);
    for (;;) {
      if (shouldStop?.()) {
        report.complete = false;
        return report;
      }
      const started = performance.now();
      const n = Number((await statement(limit).execute(db)).numAffectedRows ?? 0n);
      const took = performance.now() - started;
      report.batches[rule.name] = (report.batches[rule.name] ?? 0) + 1;
      report.deleted[rule.name] = (report.deleted[rule.name] ?? 0) + n;
      report.maxBatch = Math.max(report.maxBatch, n);
      if (n < limit) break;
      let pause = retention.batchPauseMs;
      if (!postgres) {
        const paced = Math.floor((limit * STATEMENT_TARGET_MS) / Math.max(took, 0.1));
        limit = Math.max(MIN_BATCH, Math.min(retention.batchSize, 2 * limit, paced));
        pause = Math.max(pause, took);
      }
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    }
  }
  return report;
}
