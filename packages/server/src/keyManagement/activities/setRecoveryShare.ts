import { ErrorCode, type SetRecoveryShareResult } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { defineActivity } from "../defineActivity";

/**
 * `set_recovery_share` (docs/split-custody.md §4): stores, or replaces, the user share of the caller's
 * split wallet encrypted under a key only the user can produce — a passkey's PRF output (`kind:
 * "passkey"`, one of the user's own passkeys) or a recovery code (`kind: "code"`). One blob per (wallet,
 * kind, credential). The blob is stored as given: the service cannot open it. The audit entry names the
 * wallet and the kind, never the blob.
 */
export const setRecoveryShare = defineActivity({
  type: "ACTIVITY_TYPE_SET_RECOVERY_SHARE",
  async run(tx, { caller, params }): Promise<SetRecoveryShareResult> {
    const user = caller.user;
    const wallet = await tx.db
      .selectFrom("wallets")
      .select(["id", "custody"])
      .where("id", "=", params.walletId)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (!wallet) throw apiError(ErrorCode.WALLET_NOT_FOUND, "Wallet not found");
    if (wallet.custody !== "split") {
      throw apiError(ErrorCode.INVALID_REQUEST, "Only a split-custody wallet has a user share to recover");
    }
    const credentialId = params.kind === "passkey" ? (params.credentialId ?? "") : "";
    if (params.kind === "passkey") {
      const passkey = await tx.db
        .selectFrom("authenticators")
        .select("id")
        .where("user_id", "=", user.id)
        .where("credential_id", "=", credentialId)
        .executeTakeFirst();
      if (!passkey) throw apiError(ErrorCode.INVALID_REQUEST, "credentialId is none of this user's passkeys");
    }
    const now = tx.now();
    const blob = JSON.stringify(params.blob);
    await tx.db
      .insertInto("recovery_shares")
      .values({
        id: tx.random.uuid(),
        wallet_id: wallet.id,
        org_id: user.orgId,
        user_id: user.id,
        kind: params.kind,
        credential_id: credentialId,
        blob,
        created_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["wallet_id", "kind", "credential_id"]).doUpdateSet({ blob, created_at: now }),
      )
      .execute();
    await tx.audit(
      "wallet.recovery_set",
      { appId: user.appId, userId: user.id, details: { walletId: wallet.id, kind: params.kind } },
      tx.db,
    );
    return { walletId: wallet.id, kind: params.kind };
  },
});
