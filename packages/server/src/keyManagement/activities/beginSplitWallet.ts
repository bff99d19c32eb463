import { type BeginSplitWalletResult, ErrorCode, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import {
  encodeWalletSecret,
  sealSplitShare,
  splitWalletSecret,
  type WalletSecret,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import { mnemonicToEntropy } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import { hit } from "../../limits/rateLimit";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { type ActivityContext, defineActivity } from "../defineActivity";

interface Prepared {
  sealedPendingShare: string;
  userShare: string;
  spendOtpId?: string;
  stepUp: StepUpProofUsed;
}

export const alreadySplit = () =>
  apiError(ErrorCode.WALLET_ALREADY_SPLIT, "This wallet is split already: the service holds only its share");

/**
 * `begin_split_wallet` (docs/split-custody.md §3.1): the first phase of moving a whole wallet to split
 * custody. Checked in order: the user's rate (as exports); the wallet is the caller's (WALLET_NOT_FOUND)
 * and whole (409 WALLET_ALREADY_SPLIT); the app is a split app (409 SPLIT_CUSTODY_UNSUPPORTED); a fresh
 * sign-in (any session signed in within the step-up
 * window, or a step-up proof as for export). Then the service opens the whole secret (the phrase's
 * entropy and every account's key, in their order), splits it 2-of-2, keeps its share sealed as the
 * wallet's *pending* share (a second begin replaces it) and answers the user share sealed to the
 * holder's `targetPublicKey`. Nothing else changes: the whole wallet still signs until
 * complete_split_wallet. The secret and both shares are wiped whatever happens.
 */
export const beginSplitWallet = defineActivity<"ACTIVITY_TYPE_BEGIN_SPLIT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET",
  async prepare(ctx, { caller, params }) {
    const user = caller.user;
    await hit(ctx, {
      key: `split-wallet:${user.id}`,
      limit: ctx.limits.exportsPerUser,
      message: "Too many attempts to split the wallet. Try again later.",
    });
    const wallet = await ctx.db
      .selectFrom("wallets")
      .select(["id", "custody", "sealed_mnemonic"])
      .where("id", "=", params.walletId)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (!wallet) throw apiError(ErrorCode.WALLET_NOT_FOUND, "Wallet not found");
    if (wallet.custody === "split") throw alreadySplit();
    // Only a split app's wallets: signing caches a service app's account rows in every process
    // (keyManagement/signing.ts), and a cached row would still name the destroyed whole key.
    if ((await ctx.apps.byId(user.appId))?.custody !== "split") {
      throw apiError(
        ErrorCode.SPLIT_CUSTODY_UNSUPPORTED,
        "Splitting a wallet is for split-custody apps: this app keeps its users' wallets whole",
      );
    }
    const { spendOtpId, used } = await freshSignIn(ctx, caller, params);
    let secret: WalletSecret | undefined;
    let encoded: Uint8Array | undefined;
    let shares: { userShare: Uint8Array; serviceShare: Uint8Array } | undefined;
    try {
      secret = await wholeSecret(ctx, wallet);
      encoded = encodeWalletSecret(secret);
      shares = await splitWalletSecret(encoded);
      const userShare = await sealSplitShare({
        userShare: shares.userShare,
        targetPublicKey: params.targetPublicKey,
        walletId: wallet.id,
      });
      return {
        sealedPendingShare: ctx.keyring.seal(shares.serviceShare, `wallet_pending_share:${wallet.id}`),
        userShare,
        stepUp: used,
        ...(spendOtpId ? { spendOtpId } : {}),
      };
    } finally {
      if (secret) wipeWalletSecret(secret);
      encoded?.fill(0);
      shares?.userShare.fill(0);
      shares?.serviceShare.fill(0);
    }
  },
  async run(tx, { caller, params, prepared }): Promise<BeginSplitWalletResult> {
    if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
    const updated = await tx.db
      .updateTable("wallets")
      .set({ sealed_pending_share: prepared.sealedPendingShare })
      .where("id", "=", params.walletId)
      .where("user_id", "=", caller.user.id)
      .where("custody", "=", "service")
      .executeTakeFirst();
    // Completed by another request since prepare looked.
    if (Number(updated.numUpdatedRows) !== 1) throw alreadySplit();
    await tx.audit(
      "wallet.split_begun",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: { walletId: params.walletId, stepUp: prepared.stepUp },
      },
      tx.db,
    );
    return { walletId: params.walletId, userShare: prepared.userShare };
  },
});

/**
 * The step-up of a split: any session signed in within the window (a social sign-in too: splitting
 * reveals nothing the session could not already sign with, and it runs right after the sign-in), else
 * the proofs export takes (sessions/stepUp.ts).
 */
async function freshSignIn(
  ctx: ActivityContext,
  caller: StampedCaller,
  proof: {
    verificationToken?: string | undefined;
    multiFactor?: { multiFactorId: string; multiFactorCode: string } | undefined;
  },
): Promise<{ spendOtpId?: string; used: StepUpProofUsed }> {
  if (caller.apiKeyId && !caller.passkey && !proof.verificationToken && !proof.multiFactor) {
    const session = await ctx.db
      .selectFrom("api_keys")
      .select(["signed_in_by", "created_at"])
      .where("id", "=", caller.apiKeyId)
      .executeTakeFirst();
    if (session?.signed_in_by && Number(session.created_at) >= ctx.now() - STEP_UP_MAX_AGE_MS)
      return { used: "session" };
  }
  return requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof });
}

/**
 * The wallet secret of a whole wallet: its phrase's entropy (none for an imported key) and every
 * account's key in the accounts' order (`orderedAccounts`, the order complete_split_wallet indexes).
 */
async function wholeSecret(
  ctx: Pick<ActivityContext, "db" | "keyring">,
  wallet: { id: string; sealed_mnemonic: string },
): Promise<WalletSecret> {
  const secret: WalletSecret = { entropy: new Uint8Array(0), accounts: [] };
  try {
    if (wallet.sealed_mnemonic !== "") {
      const phrase = await ctx.keyring.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`);
      try {
        secret.entropy = mnemonicToEntropy(phrase.toString("utf8"), wordlist);
      } finally {
        phrase.fill(0);
      }
    }
    for (const a of await orderedAccounts(ctx, wallet.id)) {
      const key = await ctx.keyring.open(a.sealed_private_key, `wallet_account:${a.id}`);
      secret.accounts.push({ curve: a.curve, privateKey: new Uint8Array(key) });
      key.fill(0);
    }
    return secret;
  } catch (e) {
    wipeWalletSecret(secret);
    throw e;
  }
}

/** A wallet's accounts in the order of its split secret: as they were made. */
export function orderedAccounts(ctx: Pick<ActivityContext, "db">, walletId: string) {
  return ctx.db
    .selectFrom("wallet_accounts")
    .select(["id", "curve", "address", "public_key", "sealed_private_key"])
    .where("wallet_id", "=", walletId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
}
