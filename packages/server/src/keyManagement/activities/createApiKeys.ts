import { compressP256PublicKey, fromHex, toHex } from "@latchkey/protocol";
import { defineActivity } from "../defineActivity";

/** `create_api_keys`: long-lived P-256 keys of the user (stored as compressed public keys). */
export const createApiKeys = defineActivity({
  type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
  async run(tx, { caller, params }) {
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
    return { apiKeyIds };
  },
});
