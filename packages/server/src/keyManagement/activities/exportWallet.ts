import { ErrorCode, sealExportBundle } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { hit } from "../../limits/rateLimit";
import { walletExportedMail } from "../../mail/templates";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { defineActivity } from "../defineActivity";

interface Prepared {
  exportBundle: string;
  /** The verification token's code, spent in the transaction (single use). */
  spendOtpId?: string;
  stepUp: StepUpProofUsed;
}

/**
 * `export_wallet`: the wallet's mnemonic sealed to the export frame's target key and signed by the
 * service's export-signing key (DESIGN §3.4). Checked in order: the user's export rate, the wallet is
 * the caller's own (another's is WALLET_NOT_FOUND, as an unknown one), a fresh sign-in (step-up, see
 * sessions/stepUp.ts). Then the activity is recorded with the audit entry, and the account's email is
 * sent a security notice. The bundle is ciphertext only the frame's non-extractable key opens.
 */
export const exportWallet = defineActivity<"ACTIVITY_TYPE_EXPORT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_EXPORT_WALLET",
  async prepare(ctx, { caller, params }) {
    const user = caller.user;
    // Before the step-up: a refused attempt counts too, so guessing codes here is bounded.
    await hit(ctx, {
      key: `export-wallet:${user.id}`,
      limit: ctx.limits.exportsPerUser,
      message: "Too many wallet exports. Try again later.",
    });
    const wallet = await ctx.db
      .selectFrom("wallets")
      .select(["id", "sealed_mnemonic"])
      .where("id", "=", params.walletId)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (!wallet) throw apiError(ErrorCode.WALLET_NOT_FOUND, "Wallet not found");
    const { spendOtpId, used } = await requireFreshSignIn(ctx, {
      caller,
      appId: user.appId,
      proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
    });
    const mnemonic = await ctx.keyring.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`);
    try {
      const exportBundle = await sealExportBundle({
        plaintext: mnemonic,
        targetPublicKey: params.targetPublicKey,
        organizationId: user.orgId,
        signerPublicKey: await ctx.serviceKeys.publicKey("exportSigner"),
        sign: (data) => ctx.serviceKeys.signP256Der("exportSigner", data),
      });
      return { exportBundle, stepUp: used, ...(spendOtpId ? { spendOtpId } : {}) };
    } finally {
      mnemonic.fill(0);
    }
  },
  async run(tx, { caller, params, prepared }) {
    if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
    await tx.audit(
      "wallet.exported",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: {
          walletId: params.walletId,
          stepUp: prepared.stepUp,
        },
      },
      tx.db,
    );
    return { walletId: params.walletId, exportBundle: prepared.exportBundle };
  },
  afterCommit(ctx, { caller }) {
    const to = caller.user.email;
    if (!to) return;
    void ctx.apps.byId(caller.user.appId).then((app) => {
      if (app) ctx.mailer.send(walletExportedMail({ to, appName: app.name, locale: app.locale }));
    });
  },
});
