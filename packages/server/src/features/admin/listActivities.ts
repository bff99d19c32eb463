import { defineAdminHandler } from "./adminRoute";
import { appUser, DEFAULT_PAGE, pageOf, readCursor, toActivityRow } from "./shared";

/**
 * `list_activities`: the app's activities newest first, keyset-paged on (created_at, id). A user's are
 * read from their organisation's index (`activities_org`); the app's by status from
 * `activities_status_created`, joined to the app's users.
 */
export const listActivities = defineAdminHandler({
  name: "list_activities",
  async run(ctx, { admin, body }) {
    const limit = body.limit ?? DEFAULT_PAGE;
    const cursor = readCursor(body.cursor);
    let q = ctx.db
      .selectFrom("activities")
      .innerJoin("users", "users.id", "activities.user_id")
      .selectAll("activities")
      .where("users.app_id", "=", admin.appId);
    if (body.userId !== undefined) {
      const user = await appUser(ctx.db, admin, body.userId);
      q = q.where("activities.org_id", "=", user.org_id);
    }
    if (body.status !== undefined) q = q.where("activities.status", "=", body.status);
    if (body.activityType !== undefined) q = q.where("activities.type", "=", body.activityType);
    if (body.from !== undefined) q = q.where("activities.created_at", ">=", body.from);
    if (body.to !== undefined) q = q.where("activities.created_at", "<", body.to);
    if (cursor)
      // A row comparison, so that the index bounds the scan (not a filter over it).
      q = q.where((eb) =>
        eb(eb.refTuple("activities.created_at", "activities.id"), "<", eb.tuple(cursor.createdAt, cursor.id)),
      );
    const rows = await q
      .orderBy("activities.created_at", "desc")
      .orderBy("activities.id", "desc")
      .limit(limit + 1)
      .execute();
    const { rows: page, nextCursor } = pageOf(rows, limit);
    const required = (await ctx.apps.signingPolicyOf(admin.appId))?.approvals.required ?? 1;
    const options = { required, ...(body.locale ? { locale: body.locale } : {}) };
    return { items: page.map((row) => toActivityRow(row, options)), nextCursor };
  },
});
