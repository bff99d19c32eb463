import { defineAdminHandler } from "./adminRoute";
import { appUser, toActivityRow, toAuditEvent, toUserSummary } from "./shared";

/** How many activities and security events the detail shows; older ones are in the lists. */
const RECENT = 20;

/**
 * `get_user`: one of the app's users as the console shows them: sign-in methods, wallets and their
 * addresses, live sessions, second factors, recent activities and security events (each read by the
 * user's own index).
 */
export const getUser = defineAdminHandler({
  name: "get_user",
  async run(ctx, { admin, body }) {
    const user = await appUser(ctx.db, admin, body.userId);
    const now = ctx.now();
    const [passkeys, oauth, wallets, accounts, sessions, factors, activities, events] = await Promise.all([
      ctx.db
        .selectFrom("authenticators")
        .select(["id", "name", "created_at"])
        .where("user_id", "=", user.id)
        .orderBy("created_at")
        .execute(),
      ctx.db
        .selectFrom("user_oauth_providers")
        .select(["provider_name", "email", "created_at"])
        .where("user_id", "=", user.id)
        .orderBy("created_at")
        .execute(),
      ctx.db
        .selectFrom("wallets")
        .select(["id", "name"])
        .where("user_id", "=", user.id)
        .orderBy("created_at")
        .execute(),
      ctx.db
        .selectFrom("wallet_accounts")
        .innerJoin("wallets", "wallets.id", "wallet_accounts.wallet_id")
        .select([
          "wallet_accounts.wallet_id",
          "wallet_accounts.address",
          "wallet_accounts.address_format",
          "wallet_accounts.path",
        ])
        .where("wallets.user_id", "=", user.id)
        .orderBy("wallet_accounts.created_at")
        .execute(),
      ctx.db
        .selectFrom("api_keys")
        .select(["id", "kind", "signed_in_by", "created_at", "expires_at"])
        .where("user_id", "=", user.id)
        .where("revoked_at", "is", null)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
        .orderBy("created_at", "desc")
        .execute(),
      ctx.db
        .selectFrom("mfa_factors")
        .select(["id", "type", "verified_at", "created_at"])
        .where("user_id", "=", user.id)
        .orderBy("created_at")
        .execute(),
      ctx.db
        .selectFrom("activities")
        .selectAll()
        .where("org_id", "=", user.org_id)
        .orderBy("created_at", "desc")
        .limit(RECENT)
        .execute(),
      ctx.db
        .selectFrom("audit_log")
        .select(["id", "user_id", "event", "ip", "details", "created_at"])
        .where("user_id", "=", user.id)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(RECENT)
        .execute(),
    ]);
    return {
      user: toUserSummary(user),
      signInMethods: {
        email: user.email,
        passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: Number(p.created_at) })),
        oauth: oauth.map((o) => ({
          provider: o.provider_name,
          email: o.email,
          createdAt: Number(o.created_at),
        })),
      },
      wallets: wallets.map((w) => ({
        walletId: w.id,
        name: w.name,
        accounts: accounts
          .filter((a) => a.wallet_id === w.id)
          .map((a) => ({ address: a.address, addressFormat: a.address_format, path: a.path })),
      })),
      sessions: sessions.map((s) => ({
        sessionId: s.id,
        kind: s.kind,
        signedInBy: s.signed_in_by ?? null,
        createdAt: Number(s.created_at),
        expiresAt: s.expires_at == null ? null : Number(s.expires_at),
      })),
      secondFactors: factors.map((f) => ({
        id: f.id,
        type: f.type,
        verified: f.verified_at != null,
        createdAt: Number(f.created_at),
      })),
      recentActivities: activities.map((a) => toActivityRow(a)),
      securityEvents: events.map(toAuditEvent),
    };
  },
});
