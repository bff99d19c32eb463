import { ErrorCode } from "@latchkey/protocol";
import { MAX_ACTIVITIES_PAGE } from "@latchkey/protocol/schemas";
import { apiError } from "../../errors";
import { toActivity } from "../toActivity";
import { defineQuery } from "./defineQuery";

/**
 * `list_activities`: the caller's organisation's activities, newest first, filtered by status and type,
 * a page at a time (index `activities_org` on organisation and time). `before` / `after` name an activity
 * of the organisation: the page holds the ones older / newer than it (keyset on created_at and id).
 */
export const listActivities = defineQuery({
  name: "list_activities",
  async run(ctx, { caller, body }) {
    const org = caller.user.orgId;
    const options = body.paginationOptions ?? {};
    const limit = options.limit ? Number(options.limit) : MAX_ACTIVITIES_PAGE;
    const anchorOf = async (id: string) => {
      const anchor = await ctx.db
        .selectFrom("activities")
        .select(["id", "created_at"])
        .where("id", "=", id)
        .where("org_id", "=", org)
        .executeTakeFirst();
      if (!anchor) throw apiError(ErrorCode.ACTIVITY_NOT_FOUND, `No activity ${id}`);
      return { id: anchor.id, createdAt: Number(anchor.created_at) };
    };
    let q = ctx.db.selectFrom("activities").selectAll().where("org_id", "=", org);
    if (body.filterByStatus?.length) q = q.where("status", "in", body.filterByStatus);
    if (body.filterByType?.length) q = q.where("type", "in", body.filterByType);
    if (options.before) {
      const a = await anchorOf(options.before);
      q = q.where((eb) =>
        eb.or([
          eb("created_at", "<", a.createdAt),
          eb.and([eb("created_at", "=", a.createdAt), eb("id", "<", a.id)]),
        ]),
      );
    }
    if (options.after) {
      const a = await anchorOf(options.after);
      q = q.where((eb) =>
        eb.or([
          eb("created_at", ">", a.createdAt),
          eb.and([eb("created_at", "=", a.createdAt), eb("id", ">", a.id)]),
        ]),
      );
    }
    // `after` pages up from its anchor (oldest first), then answers newest first like every page.
    const up = Boolean(options.after) && !options.before;
    const rows = await q
      .orderBy("created_at", up ? "asc" : "desc")
      .orderBy("id", up ? "asc" : "desc")
      .limit(limit)
      .execute();
    if (up) rows.reverse();
    return { activities: rows.map((row) => toActivity(row)) };
  },
});
