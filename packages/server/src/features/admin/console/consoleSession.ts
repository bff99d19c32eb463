import { ErrorCode } from "@latchkey/protocol";
import type { AppAdminKey } from "../../../apps/appDirectory";
import type { ServiceContext } from "../../../context";
import { apiError } from "../../../errors";

/** An admin who stamps the admin API: an app admin key, or a console session (`consoleSessionId`). */
export interface AdminStamper extends AppAdminKey {
  consoleSessionId?: string;
  /** The console admin the session is of: who an approval counts as (one per admin, not per session). */
  consoleAdminId?: string;
}

/**
 * The console session whose key is `publicKey` (compressed P-256, hex), as the admin it stands for; null
 * when no session has that key. A session that expired, was signed out, or whose admin was removed
 * answers 401 SESSION_EXPIRED: the console signs in again. Read from the database on every request, so
 * a signed-out session fails at once on every instance.
 */
export async function consoleSessionKey(
  ctx: Pick<ServiceContext, "db" | "now">,
  publicKey: string,
): Promise<AdminStamper | null> {
  const row = await ctx.db
    .selectFrom("console_sessions")
    .innerJoin("console_admins", "console_admins.id", "console_sessions.admin_id")
    .innerJoin("apps", "apps.id", "console_admins.app_id")
    .select([
      "console_sessions.id",
      "console_sessions.public_key",
      "console_sessions.expires_at",
      "console_sessions.revoked_at",
      "console_admins.name",
      "console_admins.id as admin_id",
      "console_admins.app_id",
      "console_admins.revoked_at as admin_revoked_at",
      "apps.org_id",
    ])
    .where("console_sessions.public_key", "=", publicKey.toLowerCase())
    .executeTakeFirst();
  if (!row) return null;
  if (row.revoked_at !== null || row.admin_revoked_at !== null || Number(row.expires_at) <= ctx.now()) {
    throw apiError(ErrorCode.SESSION_EXPIRED, "This console session has ended: sign in again");
  }
  return {
    appId: row.app_id,
    orgId: row.org_id,
    name: row.name,
    publicKey: row.public_key,
    consoleSessionId: row.id,
    consoleAdminId: row.admin_id,
  };
}
