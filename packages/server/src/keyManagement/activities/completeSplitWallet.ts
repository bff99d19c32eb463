import { type CompleteSplitWalletResult, ErrorCode } from "@latchkey/protocol";
import { openRequestShare, requireShare } from "../../custody/shareKey";
import { matchesPublicKey, withCombinedSecret } from "../../custody/splitKey";
import { apiError } from "../../errors";
import { type ActivityContext, defineActivity } from "../defineActivity";
import { alreadySplit, orderedAccounts } from "./beginSplitWallet";

interface Prepared {
  pending: string;
  accounts: { id: string; address: string }[];
}

const invalid = () =>
  apiError(
    ErrorCode.USER_SHARE_INVALID,
    "The user's share does not combine with the service's pending share to this wallet's keys",
  );
const notBegun = () =>
  apiError(ErrorCode.SPLIT_NOT_BEGUN, "No split of this wallet was begun: begin_split_wallet first");

/**
 * `complete_split_wallet` (docs/split-custody.md §3.1): the second phase of moving a whole wallet to
 * split custody. Checked in order: the wallet is the caller's (WALLET_NOT_FOUND), whole (409
 * WALLET_ALREADY_SPLIT) with a pending share (409 SPLIT_NOT_BEGUN); the request carries the user share
 * (403 USER_SHARE_REQUIRED), it opens for this body and combines with the pending share to a secret
 * holding every account's key, in order (400 USER_SHARE_INVALID: nothing changes). Then, in one
 * transaction, and only if the pending share is still the one checked: the pending share becomes the
 * service share, the whole sealed copy (phrase and account keys) is destroyed, the accounts get their
 * place in the secret, the wallet is split, and `wallet.split` is audited. Cached signing rows of the
 * user are forgotten after the commit.
 */
export const completeSplitWallet = defineActivity<"ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET",
  async prepare(ctx, { caller, params, share }) {
    const wallet = await ctx.db
      .selectFrom("wallets")
      .select(["id", "custody", "sealed_pending_share"])
      .where("id", "=", params.walletId)
      .where("user_id", "=", caller.user.id)
      .executeTakeFirst();
    if (!wallet) throw apiError(ErrorCode.WALLET_NOT_FOUND, "Wallet not found");
    if (wallet.custody === "split") throw alreadySplit();
    const pending = wallet.sealed_pending_share;
    if (!pending) throw notBegun();
    requireShare(share);
    const accounts = await orderedAccounts(ctx, wallet.id);
    let userShare: Uint8Array | undefined;
    try {
      userShare = await openRequestShare(ctx, share);
      const sealed = { sealed: pending, context: `wallet_pending_share:${wallet.id}` };
      await withCombinedSecret(ctx, userShare, sealed, invalid, (secret) => {
        if (secret.accounts.length !== accounts.length) throw invalid();
        for (const [i, a] of accounts.entries()) {
          const key = secret.accounts[i];
          if (!key || key.curve !== a.curve || !matchesPublicKey(key, a.public_key)) throw invalid();
        }
      });
      return { pending, accounts: accounts.map((a) => ({ id: a.id, address: a.address })) };
    } finally {
      userShare?.fill(0);
    }
  },
  async run(tx, { caller, params, prepared }): Promise<CompleteSplitWalletResult> {
    const user = caller.user;
    // Compare-and-set on the pending share checked: a begin since then replaced it (that share is the
    // one the holder keeps now), and a completion since then split the wallet.
    const updated = await tx.db
      .updateTable("wallets")
      .set({
        custody: "split",
        sealed_service_share: await reseal(tx, params.walletId, prepared.pending),
        sealed_pending_share: null,
        sealed_mnemonic: "",
      })
      .where("id", "=", params.walletId)
      .where("user_id", "=", user.id)
      .where("custody", "=", "service")
      .where("sealed_pending_share", "=", prepared.pending)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) {
      const now = await tx.db
        .selectFrom("wallets")
        .select("custody")
        .where("id", "=", params.walletId)
        .executeTakeFirst();
      throw now?.custody === "split" ? alreadySplit() : invalid();
    }
    for (const [i, a] of prepared.accounts.entries()) {
      await tx.db
        .updateTable("wallet_accounts")
        .set({ sealed_private_key: "", secret_index: i })
        .where("id", "=", a.id)
        .execute();
    }
    const addresses = prepared.accounts.map((a) => a.address);
    await tx.audit(
      "wallet.split",
      { appId: user.appId, userId: user.id, details: { walletId: params.walletId, addresses } },
      tx.db,
    );
    return { walletId: params.walletId, addresses };
  },
  afterCommit(ctx, { caller }) {
    // The signing path caches account rows (keyManagement/signing.ts): a cached row still names the
    // whole key, which is gone now.
    const prefix = `${caller.user.orgId}/`;
    for (const key of ctx.caches.signingAccounts.keys()) {
      if (key.startsWith(prefix)) ctx.caches.signingAccounts.delete(key);
    }
  },
});

/** The pending share, sealed again under the service share's purpose (`wallet_share:<walletId>`). */
async function reseal(
  ctx: Pick<ActivityContext, "keyring">,
  walletId: string,
  pending: string,
): Promise<string> {
  const share = await ctx.keyring.open(pending, `wallet_pending_share:${walletId}`);
  try {
    return ctx.keyring.seal(share, `wallet_share:${walletId}`);
  } finally {
    share.fill(0);
  }
}
