import { defineAdminHandler } from "./adminRoute";

/**
 * `sign_out`: ends the console session that stamps it (its key's next stamp answers SESSION_EXPIRED, on
 * every instance). An app admin key has no session to end: `{signedOut: false}`.
 */
export const signOut = defineAdminHandler({
  name: "sign_out",
  async run(ctx, { admin, ip }) {
    if (!admin.consoleSessionId) return { signedOut: false };
    await ctx.db
      .updateTable("console_sessions")
      .set({ revoked_at: ctx.now() })
      .where("id", "=", admin.consoleSessionId)
      .where("revoked_at", "is", null)
      .execute();
    await ctx.audit("admin.console_signed_out", { appId: admin.appId, ip, details: { admin: admin.name } });
    return { signedOut: true };
  },
});
