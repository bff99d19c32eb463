import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { assertKeepsASignInMethod } from "../../features/authMethods/lastMethodRule";
import { defineActivity } from "../defineActivity";
import { requireStepUp, type SteppedUp, spendStepUp } from "./stepUpGuard";

/**
 * `delete_oauth_providers`: unlinks provider identities of the user, never the last way to sign in; needs
 * a fresh sign-in first (the step-up rule of export).
 */
export const deleteOauthProviders = defineActivity<"ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", SteppedUp>({
  type: "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
  prepare: (ctx, { caller, params }) => requireStepUp(ctx, caller, params),
  async run(tx, { caller, params, prepared }) {
    await spendStepUp(tx, prepared);
    const mine = await tx.db
      .selectFrom("user_oauth_providers")
      .select("id")
      .where("user_id", "=", caller.user.id)
      .execute();
    const ids = new Set(mine.map((m) => m.id));
    if (!params.providerIds.every((id) => ids.has(id))) {
      throw apiError(ErrorCode.OAUTH_PROVIDER_NOT_FOUND, "Some of the providers are not linked to this user");
    }
    await assertKeepsASignInMethod(tx, {
      userId: caller.user.id,
      removeProviders: new Set(params.providerIds).size,
    });
    await tx.db
      .deleteFrom("user_oauth_providers")
      .where("user_id", "=", caller.user.id)
      .where("id", "in", params.providerIds)
      .execute();
    await tx.audit(
      "oauth.unlinked",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: { providerIds: params.providerIds, stepUp: prepared.stepUp },
      },
      tx.db,
    );
    return { providerIds: params.providerIds };
  },
});
