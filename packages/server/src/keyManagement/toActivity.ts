import type { Activity } from "@latchkey/protocol";
import type { ActivitiesTable } from "../db/schema";
import { previewFromStored } from "../simulation/preview";

/** A time as the reference API writes it: seconds and nanos, as strings. */
export function wireTimestamp(ms: number) {
  return { seconds: String(Math.floor(ms / 1000)), nanos: String((ms % 1000) * 1_000_000) };
}

/** The admins who approved a held signature (activities.approvals), each once, oldest first. */
export function approvalsOf(
  row: Pick<ActivitiesTable, "approvals">,
): { id: string; name: string; at: number }[] {
  if (!row.approvals) return [];
  try {
    return JSON.parse(row.approvals) as { id: string; name: string; at: number }[];
  } catch {
    return [];
  }
}

/** A stored activity as the wire shows it; `required`: the approvals a held signature needs (its app's policy). */
export function toActivity(row: ActivitiesTable, options: { required?: number } = {}): Activity {
  const preview = previewFromStored(row.preview);
  const approvals = approvalsOf(row);
  const held = row.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED";
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
    ...(preview ? { preview } : {}),
    ...(held || approvals.length > 0
      ? {
          approvals: {
            required: options.required ?? Math.max(1, approvals.length),
            approvedBy: approvals.map((a) => ({ admin: a.name, approvedAt: wireTimestamp(a.at) })),
          },
        }
      : {}),
  };
}
