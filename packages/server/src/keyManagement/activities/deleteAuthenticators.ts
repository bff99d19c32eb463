import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { assertKeepsASignInMethod } from "../../features/authMethods/lastMethodRule";
import { defineActivity } from "../defineActivity";

/** `delete_authenticators`: removes passkeys of the user, never the last way to sign in. */
export const deleteAuthenticators = defineActivity({
  type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
  async run(tx, { caller, params }) {
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
        details: { authenticatorIds: params.authenticatorIds },
      },
      tx.db,
    );
    return { authenticatorIds: params.authenticatorIds };
  },
});
