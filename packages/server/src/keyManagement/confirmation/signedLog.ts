import type { Db } from "../../db";

/** A signature the service made, as the security log keeps it (`signing.completed`). */
export interface SignedEntry {
  activityId: string;
  type: string;
  userId: string | null;
  createdAt: string;
  /** The decoded summary's title and lines (what the user was shown), when the request could be read. */
  summary: string[];
  /** The user confirmed it in the auth frame (the app's policy required it). */
  confirmedInFrame: boolean;
}

/**
 * The app's latest signatures from the security log (`signing.completed`, issue 46), newest first, with
 * what each one does: `latchkey activity signed` prints them.
 */
export async function listSignedActivities(db: Db, appId: string, limit = 20): Promise<SignedEntry[]> {
  const rows = await db
    .selectFrom("audit_log")
    .select(["user_id", "details", "created_at"])
    .where("app_id", "=", appId)
    .where("event", "=", "signing.completed")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(Math.max(1, Math.min(limit, 500)))
    .execute();
  return rows.map((row) => {
    let details: { activityId?: unknown; type?: unknown; summary?: unknown; confirmedInFrame?: unknown } = {};
    try {
      details = JSON.parse(row.details ?? "{}") as typeof details;
    } catch {}
    return {
      activityId: typeof details.activityId === "string" ? details.activityId : "",
      type: typeof details.type === "string" ? details.type : "",
      userId: row.user_id,
      createdAt: new Date(Number(row.created_at)).toISOString(),
      summary: Array.isArray(details.summary)
        ? details.summary.filter((l): l is string => typeof l === "string")
        : [],
      confirmedInFrame: details.confirmedInFrame === true,
    };
  });
}
