import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { assertKeepsASignInMethod } from "../../features/authMethods/lastMethodRule";
import { defineActivity } from "../defineActivity";
import { requireStepUp, type SteppedUp, spendStepUp } from "./stepUpGuard";

/**
 * `delete_authenticators`: removes passkeys of the user, never the last way to sign in. Taking a way in
 * from the owner needs a fresh sign-in first (the step-up rule of export), so a stolen session cannot
 * lock the owner out.
 */
export const deleteAuthenticators = defineActivity<"ACTIVITY_TYPE_DELETE_AUTHENTICATORS", SteppedUp>({
  type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
  prepare: (ctx, { caller, params }) => requireStepUp(ctx, caller, params),
  async run(tx, { caller, params, prepared }) {
    await spendStepUp(tx, prepared);
    const mine = await tx.db
      .selectFrom("authenticators")
      .select("id")
      .where("user_id", "=", caller.user.id)
      .execute();
    const ids = new Set(mine.map((m) => m.id));
    if (!params.authenticatorIds.every((id) => ids.has(id))) {
      throw apiError(ErrorCode.AUTHENTICATOR_NOT_FOUND, "Some of the passkeys do not exist for this user");
    }
    await assertKeepsASignInMethod(tx, {
      userId: caller.user.id,
      removePasskeys: new Set(params.authenticatorIds).size,
    });
    await tx.db
      .deleteFrom("authenticators")
      .where("user_id", "=", caller.user.id)
      .where("id", "in", params.authenticatorIds)
      .execute();
    await tx.audit(
      "passkey.removed",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: { authenticatorIds: params.authenticatorIds, stepUp: prepared.stepUp },
      },
      tx.db,
    );
    return { authenticatorIds: params.authenticatorIds };
  },
});
