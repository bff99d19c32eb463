import { compressP256PublicKey, fromHex, toHex } from "@latchkey/protocol";
import { defineActivity } from "../defineActivity";
import { requireStepUp, type SteppedUp, spendStepUp } from "./stepUpGuard";

/**
 * `create_api_keys`: long-lived P-256 keys of the user (stored as compressed public keys). A key that
 * outlives the session is a way in, so it needs a fresh sign-in first (the step-up rule of export).
 */
export const createApiKeys = defineActivity<"ACTIVITY_TYPE_CREATE_API_KEYS_V2", SteppedUp>({
  type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
  prepare: (ctx, { caller, params }) => requireStepUp(ctx, caller, params),
  async run(tx, { caller, params, prepared }) {
    await spendStepUp(tx, prepared);
    const now = tx.now();
    const apiKeyIds: string[] = [];
    for (const k of params.apiKeys) {
      const id = tx.random.uuid();
      apiKeyIds.push(id);
      await tx.db
        .insertInto("api_keys")
        .values({
          id,
          org_id: caller.user.orgId,
          user_id: caller.user.id,
          name: k.apiKeyName,
          public_key: toHex(compressP256PublicKey(fromHex(k.publicKey))),
          kind: "api",
          expires_at: k.expirationSeconds ? now + k.expirationSeconds * 1000 : null,
          created_at: now,
          revoked_at: null,
        })
        .execute();
    }
    await tx.audit(
      "api_key.created",
      { appId: caller.user.appId, userId: caller.user.id, details: { apiKeyIds, stepUp: prepared.stepUp } },
      tx.db,
    );
    return { apiKeyIds };
  },
});
