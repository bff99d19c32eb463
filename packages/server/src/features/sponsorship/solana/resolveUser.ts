import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../../context";
import { rpcError } from "../jsonRpc";

/**
 * Whose transaction this is: the first of its signers (the fee payer aside, in the message's order) that
 * is the embedded Solana account of one of this app's users. A user who was only the fee payer of the
 * message the client sent signs nothing once the service pays, so does not count. No such signer: the
 * transaction is no user's and is refused.
 */
export async function resolveSolanaUser(
  ctx: Pick<ServiceContext, "db">,
  params: { appId: string; signers: readonly string[] },
): Promise<{ userId: string; address: string }> {
  const { signers } = params;
  const rows = signers.length
    ? await ctx.db
        .selectFrom("wallet_accounts")
        .innerJoin("users", "users.org_id", "wallet_accounts.org_id")
        .select(["users.id", "wallet_accounts.address_key"])
        .where("wallet_accounts.address_key", "in", [...signers])
        .where("wallet_accounts.address_format", "=", "ADDRESS_FORMAT_SOLANA")
        .where("users.app_id", "=", params.appId)
        .execute()
    : [];
  for (const signer of signers) {
    const row = rows.find((r) => r.address_key === signer);
    if (row) return { userId: row.id, address: signer };
  }
  throw rpcError(
    RpcErrorCode.TRANSACTION_REJECTED,
    SponsorshipErrorCode.UNKNOWN_SENDER,
    signers.length
      ? "No signer of the transaction is a Solana account of this app's users"
      : "The transaction has no signer besides the fee payer, so it is no user's: add the user's account as a signer",
    { signers: [...signers] },
  );
}
