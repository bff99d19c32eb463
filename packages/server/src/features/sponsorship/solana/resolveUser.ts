import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../../context";
import { rpcError } from "../jsonRpc";

/**
 * Whose transaction this is: the signer (the fee payer aside) that is the embedded Solana account of the
 * request's stamped user (`userId`), or, for a request without a stamp, the first of its signers in the
 * message's order that is the account of one of this app's users. A user who was only the fee payer of
 * the message the client sent signs nothing once the service pays, so does not count. No signer of this
 * app's users: the transaction is no user's (`UNKNOWN_SENDER`); the stamped user signing nothing in it:
 * `STAMP_USER_MISMATCH`, so that naming someone else as a signer never charges them. The user found
 * being one an admin disabled: `USER_DISABLED` (not the next signer's user: nobody else is charged).
 */
export async function resolveSolanaUser(
  ctx: Pick<ServiceContext, "db">,
  params: { appId: string; signers: readonly string[]; userId?: string },
): Promise<{ userId: string; address: string }> {
  const { signers } = params;
  const rows = signers.length
    ? await ctx.db
        .selectFrom("wallet_accounts")
        .innerJoin("users", "users.org_id", "wallet_accounts.org_id")
        .select(["users.id", "users.disabled_at", "wallet_accounts.address_key"])
        .where("wallet_accounts.address_key", "in", [...signers])
        .where("wallet_accounts.address_format", "=", "ADDRESS_FORMAT_SOLANA")
        .where("users.app_id", "=", params.appId)
        .execute()
    : [];
  const mine = params.userId === undefined ? rows : rows.filter((r) => r.id === params.userId);
  for (const signer of signers) {
    const row = mine.find((r) => r.address_key === signer);
    if (row?.disabled_at != null)
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.USER_DISABLED,
        `The user of ${signer} is disabled by an admin of this app`,
        { signer },
      );
    if (row) return { userId: row.id, address: signer };
  }
  if (rows.length > 0)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.STAMP_USER_MISMATCH,
      "The request is stamped by a user whose Solana account signs nothing in this transaction",
    );
  throw rpcError(
    RpcErrorCode.TRANSACTION_REJECTED,
    SponsorshipErrorCode.UNKNOWN_SENDER,
    signers.length
      ? "No signer of the transaction is a Solana account of this app's users"
      : "The transaction has no signer besides the fee payer, so it is no user's: add the user's account as a signer",
    { signers: [...signers] },
  );
}
