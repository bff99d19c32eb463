import type { PreviewLocale } from "@latchkey/protocol";
import { ErrorCode } from "@latchkey/protocol";
import type { AppAdminKey } from "../../apps/appDirectory";
import type { Db } from "../../db";
import type { ActivitiesTable, AuditLogTable, UsersTable } from "../../db/schema";
import { apiError } from "../../errors";
import { approvalsOf } from "../../keyManagement/toActivity";
import { previewFromStored } from "../../simulation/preview";

/** A page holds 50 rows unless the request asks for fewer or more (up to 200). */
export const DEFAULT_PAGE = 50;

/** A keyset position: the last row's `created_at` and id, written `<ms>.<id>`. */
export interface Cursor {
  createdAt: number;
  id: string;
}

export function readCursor(cursor: string | undefined): Cursor | null {
  if (cursor === undefined) return null;
  const m = /^(\d{1,16})\.([\w:.-]{1,200})$/.exec(cursor);
  if (!m?.[1] || !m[2]) throw apiError(ErrorCode.INVALID_CURSOR, "The cursor is not one a page answered");
  return { createdAt: Number(m[1]), id: m[2] };
}

/** The page's rows (one more was read to know whether another page follows) and the next cursor. */
export function pageOf<R extends { created_at: number; id: string }>(
  rows: R[],
  limit: number,
): { rows: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? `${last.created_at}.${last.id}` : null };
}

type UserRow = Pick<UsersTable, "id" | "org_id" | "email" | "created_at"> & {
  disabled_at?: number | null;
};

export function toUserSummary(u: UserRow) {
  return {
    userId: u.id,
    organizationId: u.org_id,
    email: u.email,
    createdAt: Number(u.created_at),
    disabledAt: u.disabled_at == null ? null : Number(u.disabled_at),
  };
}

/** The app's user with this id; 404 USER_NOT_FOUND for another app's user or none. */
export async function appUser(db: Db, admin: AppAdminKey, userId: string) {
  const user = await db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email", "created_at", "disabled_at"])
    .where("id", "=", userId)
    .where("app_id", "=", admin.appId)
    .executeTakeFirst();
  if (!user) throw apiError(ErrorCode.USER_NOT_FOUND, `No user ${userId} in this app`);
  return user;
}

/**
 * An activity as the admin API lists it; a held signature with its preview (in `locale`) and its
 * approvals (`required`: the app's `approvals.required`).
 */
export function toActivityRow(
  a: ActivitiesTable,
  options: { locale?: PreviewLocale; required?: number } = {},
) {
  const preview = previewFromStored(a.preview, options.locale);
  const approvals = approvalsOf(a);
  const held = a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED";
  return {
    activityId: a.id,
    userId: a.user_id,
    organizationId: a.org_id,
    type: a.type,
    status: a.status,
    fingerprint: a.fingerprint,
    failure: a.failure ? (JSON.parse(a.failure) as { code: string; message: string }) : null,
    createdAt: Number(a.created_at),
    updatedAt: Number(a.updated_at),
    ...(a.approved_at != null && a.approval_expires_at != null
      ? {
          approval: {
            approvedBy: a.approved_by ?? "",
            approvedAt: Number(a.approved_at),
            expiresAt: Number(a.approval_expires_at),
          },
        }
      : {}),
    ...(preview ? { preview } : {}),
    ...(held || approvals.length > 0
      ? {
          approvals: {
            required: options.required ?? Math.max(1, approvals.length),
            approvedBy: approvals.map((x) => ({ admin: x.name, approvedAt: x.at })),
          },
        }
      : {}),
  };
}

export function toAuditEvent(
  r: Pick<AuditLogTable, "id" | "user_id" | "event" | "ip" | "details" | "created_at">,
) {
  return {
    eventId: r.id,
    userId: r.user_id,
    event: r.event,
    ip: r.ip,
    details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
    createdAt: Number(r.created_at),
  };
}
