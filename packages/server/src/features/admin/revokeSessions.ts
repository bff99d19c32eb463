import { ErrorCode } from "@latchkey/protocol";
import { forgetStampKeys } from "../../auth/stamps/stampKeyCache";
import { apiError } from "../../errors";
import { defineAdminHandler } from "./adminRoute";
import { appUser } from "./shared";

/**
 * `revoke_sessions`: revokes one of the user's keys (`sessionId`), or every unrevoked one. Stamps are
 * checked against the database on every request (stampKeyCache.ts), so the next signature with a
 * revoked key fails at once, on every instance.
 */
export const revokeSessions = defineAdminHandler({
  name: "revoke_sessions",
  async run(ctx, { admin, body, ip }) {
    const user = await appUser(ctx.db, admin, body.userId);
    let q = ctx.db
      .updateTable("api_keys")
      .set({ revoked_at: ctx.now() })
      .where("user_id", "=", user.id)
      .where("revoked_at", "is", null);
    if (body.sessionId !== undefined) q = q.where("id", "=", body.sessionId);
    const revoked = Number((await q.executeTakeFirst()).numUpdatedRows);
    if (body.sessionId !== undefined && revoked === 0) {
      throw apiError(ErrorCode.SESSION_NOT_FOUND, `The user has no live session ${body.sessionId}`);
    }
    forgetStampKeys(ctx);
    await ctx.audit("admin.sessions_revoked", {
      appId: admin.appId,
      userId: user.id,
      ip,
      details: { admin: admin.name, revoked, ...(body.sessionId ? { sessionId: body.sessionId } : {}) },
    });
    return { revoked };
  },
});
