import type { Activity } from "@latchkey/protocol";
import type { ActivitiesTable } from "../db/schema";

/** A time as the reference API writes it: seconds and nanos, as strings. */
export function wireTimestamp(ms: number) {
  return { seconds: String(Math.floor(ms / 1000)), nanos: String((ms % 1000) * 1_000_000) };
}

/** A stored activity as the wire shows it. */
export function toActivity(row: ActivitiesTable): Activity {
  return {
    id: row.id,
    organizationId: row.org_id,
    status: row.status as Activity["status"],
    type: row.type,
    intent: JSON.parse(row.intent) as Record<string, unknown>,
    result: JSON.parse(row.result) as Record<string, unknown>,
    fingerprint: row.fingerprint,
    createdAt: wireTimestamp(row.created_at),
    updatedAt: wireTimestamp(row.updated_at),
    ...(row.failure ? { failure: JSON.parse(row.failure) as { code: string; message: string } } : {}),
    ...(row.approved_at != null && row.approval_expires_at != null
      ? {
          approval: {
            approvedBy: row.approved_by ?? "",
            approvedAt: wireTimestamp(Number(row.approved_at)),
            expiresAt: wireTimestamp(Number(row.approval_expires_at)),
          },
        }
      : {}),
  };
}
