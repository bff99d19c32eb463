import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { linkProvider, markTokenLinked } from "../../oauthProviders/providerLinks";
import { type VerifiedProviderToken, verifyProviderToken } from "../../oauthProviders/verifyProviderToken";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { defineActivity } from "../defineActivity";

interface Prepared {
  tokens: VerifiedProviderToken[];
  stepUp: StepUpProofUsed;
  /** The verification token's code, spent in the transaction (single use). */
  spendOtpId?: string;
}

/**
 * `create_oauth_providers`: links provider identities. A linked provider signs in to the account, so
 * linking one needs a fresh sign-in first (sessions/stepUp.ts, as wallet export); ID tokens are checked
 * (JWKS) before the transaction.
 */
export const createOauthProviders = defineActivity<"ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS", Prepared>({
  type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    const { spendOtpId, used } = await requireFreshSignIn(ctx, {
      caller,
      appId: app.id,
      proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
    });
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
    return { tokens: out, stepUp: used, ...(spendOtpId ? { spendOtpId } : {}) };
  },
  async run(tx, { caller, prepared }) {
    if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
    const providerIds: string[] = [];
    for (const t of prepared.tokens) {
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
        details: { providers: prepared.tokens.map((t) => t.providerName), stepUp: prepared.stepUp },
      },
      tx.db,
    );
    return { providerIds };
  },
});
