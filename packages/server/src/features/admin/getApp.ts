import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { defineAdminHandler } from "./adminRoute";

/** A JSON object as stored (policies are written from the config file: plain JSON). */
const asRecord = (value: unknown) => JSON.parse(JSON.stringify(value ?? {})) as Record<string, unknown>;

/**
 * `get_app`: the console's read-only view of the app's configuration, and who is asking. Secrets are
 * never in it: an OAuth client secret is said to exist, API keys show their prefix, webhook endpoints
 * their URL and events only.
 */
export const getApp = defineAdminHandler({
  name: "get_app",
  async run(ctx, { admin }) {
    const app = await ctx.apps.byId(admin.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This admin's app no longer exists");
    const [keys, webhooks] = await Promise.all([
      ctx.db
        .selectFrom("app_api_keys")
        .select(["key_prefix", "created_at", "revoked_at"])
        .where("app_id", "=", app.id)
        .orderBy("created_at")
        .execute(),
      ctx.db
        .selectFrom("webhook_endpoints")
        .select(["id", "url", "events", "created_at"])
        .where("app_id", "=", app.id)
        .where("removed_at", "is", null)
        .orderBy("created_at")
        .execute(),
    ]);
    return {
      admin: { name: admin.name, via: admin.consoleSessionId ? ("console" as const) : ("adminKey" as const) },
      app: {
        id: app.id,
        name: app.name,
        organizationId: app.orgId,
        emailMode: app.emailMode,
        locale: app.locale,
        custody: app.custody,
        allowedOrigins: app.allowedOrigins,
        magicLinkRedirectUrls: app.magicLinkRedirectUrls,
        oauthRedirectUrls: app.oauthRedirectUrls,
        webauthn: app.webauthn,
        oauthProviders: app.oauthProviders.map((p) => ({
          id: p.id,
          displayName: p.displayName,
          issuer: p.issuer,
          clientId: p.clientId,
          scopes: p.scopes,
          hasClientSecret: p.sealedClientSecret !== undefined || p.apple !== undefined,
        })),
        jwt: app.jwt ?? null,
        apiKeys: keys.map((k) => ({
          prefix: k.key_prefix,
          createdAt: Number(k.created_at),
          revokedAt: k.revoked_at == null ? null : Number(k.revoked_at),
        })),
        sponsorship: {
          policies: app.sponsorship.policies.map(asRecord),
          solanaPolicies: app.sponsorship.solanaPolicies.map(asRecord),
        },
        signingPolicy: app.signingPolicy ? asRecord(app.signingPolicy) : null,
        webhooks: webhooks.map((w) => ({
          endpointId: w.id,
          url: w.url,
          events: JSON.parse(w.events) as string[],
          createdAt: Number(w.created_at),
        })),
      },
    };
  },
});
