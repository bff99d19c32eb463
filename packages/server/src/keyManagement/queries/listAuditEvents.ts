import { MAX_AUDIT_EVENTS } from "@latchkey/protocol/schemas";
import { wireTimestamp } from "../toActivity";
import { defineQuery } from "./defineQuery";
import { assertOwnUser } from "./ownUser";

/**
 * `list_audit_events`: the caller's own security events from the audit log (DESIGN §10), newest first:
 * what a "recent security activity" page shows. Another user's id is "not found".
 */
export const listAuditEvents = defineQuery({
  name: "list_audit_events",
  async run(ctx, { caller, body }) {
    assertOwnUser(caller, body.userId);
    const rows = await ctx.db
      .selectFrom("audit_log")
      .select(["id", "event", "ip", "details", "created_at"])
      .where("user_id", "=", caller.user.id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(body.limit ?? MAX_AUDIT_EVENTS)
      .execute();
    return {
      events: rows.map((r) => ({
        eventId: r.id,
        event: r.event,
        createdAt: wireTimestamp(Number(r.created_at)),
        ...(r.ip ? { ip: r.ip } : {}),
        ...(r.details ? { details: JSON.parse(r.details) as Record<string, unknown> } : {}),
      })),
    };
  },
});
