import { ErrorCode } from "@latchkey/protocol";
import { sql } from "kysely";
import { apiError } from "../../errors";
import { defineAdminHandler } from "./adminRoute";

const DAY_MS = 86_400_000;
/** Without `fromDay`, the last 30 days (UTC); at most 366 days at once. */
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;

/** The activities that make a signature. */
export const SIGNATURE_TYPES = [
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
];
/** Security-log events of a sign-in (what makes a user active that day besides a signature). */
export const SIGN_IN_EVENTS = ["user.signup", "user.signin", "siwe.signin"];
/** Security-log events of a failed sign-in: a wrong email code, a social sign-in that failed. */
export const FAILED_SIGN_IN_EVENTS = ["otp.failed", "oauth.failed"];

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The UTC day number of a millisecond column (integer division on both databases). */
const dayNumber = (column: string) => sql<number>`${sql.ref(column)} / 86400000`;

/**
 * `daily_stats`: the overview's charts, per UTC day. Each count is one grouped query over an index
 * bounded by the app and the time range: sign-ups from `users_app_created`; sign-ins and failed sign-ins
 * from `audit_log_app_event_created`; signatures from `activities_status_created` (completed ones, joined
 * to the app's users); active users are the distinct users of a sign-in or a signature that day.
 */
export const dailyStats = defineAdminHandler({
  name: "daily_stats",
  async run(ctx, { admin, body }) {
    const toDay = body.toDay ?? dayOf(ctx.now());
    const fromDay = body.fromDay ?? dayOf(Date.parse(`${toDay}T00:00:00Z`) - (DEFAULT_DAYS - 1) * DAY_MS);
    const from = Date.parse(`${fromDay}T00:00:00Z`);
    const to = Date.parse(`${toDay}T00:00:00Z`) + DAY_MS;
    const span = (to - from) / DAY_MS;
    if (span < 1 || span > MAX_DAYS) {
      throw apiError(
        ErrorCode.INVALID_REQUEST,
        `Invalid request: fromDay..toDay spans 1 to ${MAX_DAYS} days`,
      );
    }
    const db = ctx.db;
    const signUps = db
      .selectFrom("users")
      .select((eb) => [dayNumber("users.created_at").as("d"), eb.fn.countAll<number>().as("n")])
      .where("users.app_id", "=", admin.appId)
      .where("users.created_at", ">=", from)
      .where("users.created_at", "<", to)
      .groupBy(dayNumber("users.created_at"))
      .execute();
    const events = (names: string[]) =>
      db
        .selectFrom("audit_log")
        .where("audit_log.app_id", "=", admin.appId)
        .where("audit_log.event", "in", names)
        .where("audit_log.created_at", ">=", from)
        .where("audit_log.created_at", "<", to);
    const signatures = () =>
      db
        .selectFrom("activities")
        .innerJoin("users", "users.id", "activities.user_id")
        .where("activities.status", "=", "ACTIVITY_STATUS_COMPLETED")
        .where("activities.created_at", ">=", from)
        .where("activities.created_at", "<", to)
        .where("activities.type", "in", SIGNATURE_TYPES)
        .where("users.app_id", "=", admin.appId);
    const signed = signatures()
      .select((eb) => [dayNumber("activities.created_at").as("d"), eb.fn.countAll<number>().as("n")])
      .groupBy(dayNumber("activities.created_at"))
      .execute();
    const failed = events(FAILED_SIGN_IN_EVENTS)
      .select((eb) => [dayNumber("audit_log.created_at").as("d"), eb.fn.countAll<number>().as("n")])
      .groupBy(dayNumber("audit_log.created_at"))
      .execute();
    // One row per (day, user) from either source (UNION drops the repeats), then counted per day.
    const activeRows = events(SIGN_IN_EVENTS)
      .where("audit_log.user_id", "is not", null)
      .select([dayNumber("audit_log.created_at").as("d"), "audit_log.user_id as u"])
      .union(signatures().select([dayNumber("activities.created_at").as("d"), "activities.user_id as u"]));
    const active = db
      .selectFrom(activeRows.as("t"))
      .select((eb) => ["t.d", eb.fn.countAll<number>().as("n")])
      .groupBy("t.d")
      .execute();

    const counts = await Promise.all([signUps, active, signed, failed]);
    const [byUp, byActive, bySigned, byFailed] = counts.map(
      (rows) => new Map(rows.map((r) => [Number(r.d), Number(r.n)])),
    ) as [Map<number, number>, Map<number, number>, Map<number, number>, Map<number, number>];
    const days = [];
    for (let d = from / DAY_MS; d < to / DAY_MS; d++) {
      days.push({
        day: dayOf(d * DAY_MS),
        signUps: byUp.get(d) ?? 0,
        activeUsers: byActive.get(d) ?? 0,
        signatures: bySigned.get(d) ?? 0,
        failedSignIns: byFailed.get(d) ?? 0,
      });
    }
    return { days };
  },
});
