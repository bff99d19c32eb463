import { defineAdminHandler } from "./adminRoute";
import { appUser, toUserSummary } from "./shared";

/** `enable_user`: a disabled user may sign in and sign again. */
export const enableUser = defineAdminHandler({
  name: "enable_user",
  async run(ctx, { admin, body, ip }) {
    const user = await appUser(ctx.db, admin, body.userId);
    if (user.disabled_at != null) {
      await ctx.db.updateTable("users").set({ disabled_at: null }).where("id", "=", user.id).execute();
      await ctx.audit("admin.user_enabled", {
        appId: admin.appId,
        userId: user.id,
        ip,
        details: { admin: admin.name },
      });
    }
    return { user: toUserSummary({ ...user, disabled_at: null }) };
  },
});
