import { defineAdminHandler } from "./adminRoute";
import { appUser, DEFAULT_PAGE, pageOf, readCursor, toAuditEvent } from "./shared";

/**
 * `list_audit_events`: the app's security log newest first, keyset-paged on (created_at, id) (index
 * `audit_log_app_created`; a user's from `audit_log_user_created`).
 */
export const listAuditEvents = defineAdminHandler({
  name: "list_audit_events",
  async run(ctx, { admin, body }) {
    const limit = body.limit ?? DEFAULT_PAGE;
    const cursor = readCursor(body.cursor);
    let q = ctx.db
      .selectFrom("audit_log")
      .select(["id", "user_id", "event", "ip", "details", "created_at"])
      .where("app_id", "=", admin.appId);
    if (body.userId !== undefined) {
      await appUser(ctx.db, admin, body.userId);
      q = q.where("user_id", "=", body.userId);
    }
    if (body.event !== undefined) q = q.where("event", "=", body.event);
    if (body.from !== undefined) q = q.where("created_at", ">=", body.from);
    if (body.to !== undefined) q = q.where("created_at", "<", body.to);
    if (cursor)
      // A row comparison, so that the index bounds the scan (not a filter over it).
      q = q.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(cursor.createdAt, cursor.id)));
    const rows = await q
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1)
      .execute();
    const { rows: page, nextCursor } = pageOf(rows, limit);
    return { items: page.map(toAuditEvent), nextCursor };
  },
});
