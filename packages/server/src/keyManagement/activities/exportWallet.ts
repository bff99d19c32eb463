import { ErrorCode, SPLIT_EXPORT_PREFIX, sealExportBundle } from "@latchkey/protocol";
import { base58 } from "@scure/base";
import { ed25519PublicKey } from "../../crypto/wallet";
import { apiError } from "../../errors";
import { hit } from "../../limits/rateLimit";
import { walletExportedMail } from "../../mail/templates";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { type ActivityContext, defineActivity } from "../defineActivity";

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
      .select(["id", "sealed_mnemonic", "custody", "sealed_service_share"])
      .where("id", "=", params.walletId)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (!wallet) throw apiError(ErrorCode.WALLET_NOT_FOUND, "Wallet not found");
    const { spendOtpId, used } = await requireFreshSignIn(ctx, {
      caller,
      appId: user.appId,
      proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
    });
    // A wallet the service made, or an imported phrase: the words. An imported key: that key, as JSON.
    // A split wallet: only the service's share (`split:v1:…`); the export frame combines it with the
    // user's share from its own storage (docs/split-custody.md §5). The service never combines here.
    const mnemonic =
      wallet.custody === "split" && wallet.sealed_service_share
        ? await splitExport(ctx, wallet.id, wallet.sealed_service_share)
        : wallet.sealed_mnemonic === ""
          ? await exportedKeys(ctx, wallet.id)
          : await ctx.keyring.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`);
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
    ctx.mailer.sendOnceBuilt(
      ctx.apps
        .byId(caller.user.appId)
        .then((app) => app && walletExportedMail({ to, appName: app.name, locale: app.locale })),
    );
  },
});

/** A split wallet's export plaintext: `split:v1:` + base64url of the service share (SPLIT_EXPORT_PREFIX). */
async function splitExport(
  ctx: Pick<ActivityContext, "keyring">,
  walletId: string,
  sealed: string,
): Promise<Uint8Array> {
  const share = await ctx.keyring.open(sealed, `wallet_share:${walletId}`);
  try {
    return new TextEncoder().encode(`${SPLIT_EXPORT_PREFIX}${share.toString("base64url")}`);
  } finally {
    share.fill(0);
  }
}

/**
 * The export of a wallet imported as a key (it has no phrase): JSON `{"evmPrivateKey": "0x…"}` or
 * `{"solanaSecretKey": "<base58 of seed ‖ public key>"}`, the forms wallets import, which the export frame
 * shows as they are.
 */
async function exportedKeys(
  ctx: Pick<ActivityContext, "db" | "keyring">,
  walletId: string,
): Promise<Uint8Array> {
  const accounts = await ctx.db
    .selectFrom("wallet_accounts")
    .select(["id", "address_format", "sealed_private_key"])
    .where("wallet_id", "=", walletId)
    .execute();
  const out: { evmPrivateKey?: string; solanaSecretKey?: string } = {};
  for (const a of accounts) {
    const key = await ctx.keyring.open(a.sealed_private_key, `wallet_account:${a.id}`);
    try {
      if (a.address_format === "ADDRESS_FORMAT_ETHEREUM") out.evmPrivateKey = `0x${key.toString("hex")}`;
      else out.solanaSecretKey = base58.encode(Buffer.concat([key, ed25519PublicKey(key)]));
    } finally {
      key.fill(0);
    }
  }
  return new TextEncoder().encode(JSON.stringify(out));
}
