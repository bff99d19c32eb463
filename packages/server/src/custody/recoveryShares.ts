import type { RecoveryShareRecord } from "@latchkey/protocol";
import type { Db } from "../db";

/**
 * The organisation's recovery blobs (set_recovery_share), newest first: encrypted under keys only the
 * user has, answered as stored to the user's own session, for a new device, with each wallet's addresses
 * (a new device keeps an imported wallet's share by them: docs/split-custody.md §5, Import).
 */
export async function recoverySharesOf(db: Db, orgId: string): Promise<RecoveryShareRecord[]> {
  const rows = await db
    .selectFrom("recovery_shares")
    .select(["wallet_id", "kind", "credential_id", "blob", "created_at"])
    .where("org_id", "=", orgId)
    .orderBy("created_at", "desc")
    .execute();
  const accounts = rows.length
    ? await db
        .selectFrom("wallet_accounts")
        .select(["wallet_id", "address"])
        .where("org_id", "=", orgId)
        .orderBy("created_at")
        .orderBy("secret_index")
        .execute()
    : [];
  const addressesOf = (walletId: string) =>
    accounts.filter((a) => a.wallet_id === walletId).map((a) => a.address);
  return rows.map((r) => ({
    walletId: r.wallet_id,
    kind: r.kind,
    ...(r.credential_id ? { credentialId: r.credential_id } : {}),
    blob: JSON.parse(r.blob) as RecoveryShareRecord["blob"],
    createdAt: Number(r.created_at),
    addresses: addressesOf(r.wallet_id),
  }));
}
