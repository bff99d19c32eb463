import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { linkProvider, markTokenLinked } from "../../oauthProviders/providerLinks";
import { type VerifiedProviderToken, verifyProviderToken } from "../../oauthProviders/verifyProviderToken";
import { defineActivity } from "../defineActivity";

/** `create_oauth_providers`: links provider identities; ID tokens are checked (JWKS) before the transaction. */
export const createOauthProviders = defineActivity<
  "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
  VerifiedProviderToken[]
>({
  type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    const out: VerifiedProviderToken[] = [];
    for (const o of params.oauthProviders) {
      out.push(
        await verifyProviderToken(ctx, {
          app,
          providerName: o.providerName,
          token: o.oidcToken,
          callerOrgId: caller.user.orgId,
          targetPublicKey: o.targetPublicKey,
        }),
      );
    }
    return out;
  },
  async run(tx, { caller, prepared }) {
    const providerIds: string[] = [];
    for (const t of prepared) {
      providerIds.push(
        await linkProvider(tx, {
          user: caller.user,
          providerName: t.providerName,
          issuer: t.issuer,
          subject: t.subject,
          email: t.email,
          name: t.name,
        }),
      );
      await markTokenLinked(tx, { tokenHash: t.tokenHash });
    }
    await tx.audit(
      "oauth.linked",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: { providers: prepared.map((t) => t.providerName) },
      },
      tx.db,
    );
    return { providerIds };
  },
});
