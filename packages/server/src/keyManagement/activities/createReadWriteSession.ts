import { forgetStampKeys } from "../../auth/stamps/stampKeyCache";
import { issueSession } from "../../sessions/issueSession";
import { passkeyCounts } from "../../sessions/stepUp";
import { defineActivity } from "../defineActivity";

/**
 * `create_read_write_session`: a session key sealed to `targetPublicKey`. Stamped by a passkey and
 * addressed to the app's root organisation, this is the one-prompt passkey login.
 */
export const createReadWriteSession = defineActivity({
  type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
  async run(tx, { caller, params }) {
    if (params.invalidateExisting) {
      await tx.db
        .updateTable("api_keys")
        .set({ revoked_at: tx.now() })
        .where("user_id", "=", caller.user.id)
        .where("kind", "=", "session")
        .where("revoked_at", "is", null)
        .where("id", "!=", caller.apiKeyId ?? "")
        .execute();
    }
    const session = await issueSession(tx, {
      user: caller.user,
      targetPublicKey: params.targetPublicKey,
      expirationSeconds: params.expirationSeconds,
      name: params.apiKeyName ?? "session",
      // A passkey-stamped session (passkey login) is a sign-in; one made by another session key is not,
      // nor one by a passkey that was added without a step-up proof (it proves nothing fresh).
      signedInBy:
        caller.passkey && (await passkeyCounts(tx, caller.passkey.authenticatorId)) ? "passkey" : undefined,
    });
    if (caller.passkey)
      await tx.audit(
        "user.signin",
        { appId: caller.user.appId, userId: caller.user.id, details: { method: "passkey" } },
        tx.db,
      );
    return {
      organizationId: caller.user.orgId,
      organizationName: "",
      userId: caller.user.id,
      username: caller.user.email ?? "",
      apiKeyId: session.apiKeyId,
      credentialBundle: session.credentialBundle,
    };
  },
  // Revocations are seen by this service's stamp checks at once.
  afterCommit: (ctx) => forgetStampKeys(ctx),
});
