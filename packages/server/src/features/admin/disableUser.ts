import { defineAdminHandler } from "./adminRoute";
import { appUser, toUserSummary } from "./shared";

/**
 * `disable_user`: the user can neither sign in (no session is issued: sessions/issueSession.ts) nor sign
 * (every stamp of theirs answers 403 USER_DISABLED: stampKeyCache.ts, verifyPasskeyStamp.ts) until an
 * admin enables them. Their sessions are kept: enabling gives them back.
 */
export const disableUser = defineAdminHandler({
  name: "disable_user",
  async run(ctx, { admin, body, ip }) {
    const user = await appUser(ctx.db, admin, body.userId);
    const disabledAt = user.disabled_at ?? ctx.now();
    if (user.disabled_at == null) {
      await ctx.db.updateTable("users").set({ disabled_at: disabledAt }).where("id", "=", user.id).execute();
      await ctx.audit("admin.user_disabled", {
        appId: admin.appId,
        userId: user.id,
        ip,
        details: { admin: admin.name },
      });
    }
    return { user: toUserSummary({ ...user, disabled_at: disabledAt }) };
  },
});
