import { ErrorCode } from "@latchkey/protocol";
import { forgetStampKeys } from "../../auth/stamps/stampKeyCache";
import { apiError } from "../../errors";
import { defineActivity } from "../defineActivity";

/** `delete_api_keys`: revokes keys of the user; every one must exist and be live. */
export const deleteApiKeys = defineActivity({
  type: "ACTIVITY_TYPE_DELETE_API_KEYS",
  async run(tx, { caller, params }) {
    const found = await tx.db
      .selectFrom("api_keys")
      .select("id")
      .where("user_id", "=", caller.user.id)
      .where("id", "in", params.apiKeyIds)
      .where("revoked_at", "is", null)
      .execute();
    if (found.length !== new Set(params.apiKeyIds).size) {
      throw apiError(ErrorCode.API_KEY_NOT_FOUND, "Some of the API keys do not exist for this user");
    }
    await tx.db
      .updateTable("api_keys")
      .set({ revoked_at: tx.now() })
      .where("id", "in", params.apiKeyIds)
      .execute();
    return { apiKeyIds: params.apiKeyIds };
  },
  afterCommit: (ctx) => forgetStampKeys(ctx),
});
