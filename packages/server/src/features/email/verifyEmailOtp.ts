import type { OtpResponse, otpRequestSchema } from "@latchkey/protocol";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { openSignInWalletShares } from "../../custody/shareKey";
import { apiError, ErrorCode } from "../../errors";
import {
  prepareSplitWallet,
  recordSplitWallet,
  type SplitWalletRows,
} from "../../keyManagement/activities/createSplitWallet";
import { checkCode, consumeCode, invalidOtp, limitCodeAttempts } from "../../otp/checkCode";
import { issueSession } from "../../sessions/issueSession";
import { findUserByOrg, userAddresses, userCustody } from "../../users/userStore";
import { checkAllFactors } from "../mfa/checkFactorCode";
import { listFactors } from "../mfa/factorStore";
import { createPendingSignIn } from "../mfa/pendingSignIn";

/**
 * Checks a code: wrong codes count against the code (5 burn it), the right one is consumed atomically,
 * so two racing submissions can never both succeed. With a second factor on, the answer is MFA_REQUIRED
 * and a payload only this service can open.
 *
 * Split custody (docs/split-custody.md §3): a new user's sign-in may carry their wallet (`splitWallet`),
 * made by their key holder, both shares sealed to the share key for this sign-in. Once the code is known
 * right, the shares are opened and checked as `create_split_wallet` checks them, and the wallet is
 * recorded in the transaction that spends the code and issues the session: one request, and the wallet
 * is bound to the sign-in that proved the email (its code spent once, its session key named in the seal).
 */
export async function verifyEmailOtp(
  ctx: ServiceContext,
  params: { app: App; request: z.output<typeof otpRequestSchema>; ip: string },
): Promise<OtpResponse> {
  const { app, request, ip } = params;
  const now = ctx.now();
  await limitCodeAttempts(ctx, ip);
  const otp = await ctx.db.selectFrom("otps").selectAll().where("id", "=", request.otpId).executeTakeFirst();
  if (!otp || otp.app_id !== app.id || otp.org_id !== request.orgId) throw invalidOtp();
  await checkCode(ctx, {
    table: "otps",
    otp,
    code: request.otpCode,
    now,
    onBurn: () => ctx.audit("otp.burned", { appId: app.id, userId: otp.user_id, ip }),
    onWrong: () => ctx.audit("otp.failed", { appId: app.id, userId: otp.user_id, ip }),
  });
  const user = await findUserByOrg(ctx.db, otp.org_id);
  if (!user) throw invalidOtp();
  const factors = await listFactors(ctx, { userId: user.id });
  if (factors.length > 0 && request.multiFactors?.length) {
    await checkAllFactors(ctx, { userId: user.id, given: request.multiFactors });
  }
  const needsFactor = factors.length > 0 && !request.multiFactors?.length;
  const wallet =
    request.splitWallet && !needsFactor
      ? await prepareSignInWallet(ctx, {
          app,
          orgId: otp.org_id,
          otpId: otp.id,
          targetPublicKey: request.targetPublicKey,
          splitWallet: request.splitWallet,
        })
      : undefined;
  const bundle = await ctx.db.transaction().execute(async (trx) => {
    await consumeCode(trx, { table: "otps", otpId: otp.id, now });
    if (needsFactor) return null;
    if (wallet) await recordSplitWallet({ ...ctx, db: trx }, { user, prepared: wallet });
    const session = await issueSession(
      { ...ctx, db: trx },
      {
        user,
        targetPublicKey: request.targetPublicKey,
        expirationSeconds: request.expirationSeconds,
        name: "otp",
        signedInBy: "email_code",
      },
    );
    return session.credentialBundle;
  });
  if (bundle === null) {
    // The email code is spent; what remains is sealed for the service itself until the factor is given.
    const encryptedPayload = await createPendingSignIn(ctx, {
      app,
      user,
      targetPublicKey: request.targetPublicKey,
      expirationSeconds: request.expirationSeconds,
    });
    return { status: "MFA_REQUIRED", encryptedPayload, multiFactors: factors };
  }
  await ctx.audit("user.signin", { appId: app.id, userId: user.id, ip, details: { method: "otp" } });
  // Who signed in, as whoami answers: the client connects without a stamped whoami round trip. A wallet
  // made by this sign-in is the user's only one, with no recovery factor yet: answered as recorded.
  const [addresses, custody] = wallet
    ? [
        addressesOf(wallet),
        { custody: "split" as const, walletState: "ready" as const, walletId: wallet.walletId, recovery: [] },
      ]
    : await Promise.all([
        userAddresses(ctx.db, user.orgId),
        userCustody(ctx, { orgId: user.orgId, appId: app.id, appCustody: app.custody }),
      ]);
  return {
    status: "SUCCESS",
    credentialBundle: bundle,
    user: {
      ...(user.email ? { email: user.email } : {}),
      orgId: user.orgId,
      userId: user.id,
      ...addresses,
      ...custody,
    },
  };
}

/**
 * The sign-in's split wallet, checked before the transaction: only in a split app (400 INVALID_REQUEST),
 * for a user with no wallet (409 WALLET_EXISTS), its shares opened for this sign-in (400
 * USER_SHARE_INVALID) and checked as create_split_wallet checks them. The shares are wiped here.
 */
async function prepareSignInWallet(
  ctx: ServiceContext,
  params: {
    app: App;
    orgId: string;
    otpId: string;
    targetPublicKey: string;
    splitWallet: NonNullable<z.output<typeof otpRequestSchema>["splitWallet"]>;
  },
): Promise<SplitWalletRows> {
  if (params.app.custody !== "split") {
    throw apiError(
      ErrorCode.INVALID_REQUEST,
      "This app's wallets are made by the service (custody: service): a sign-in carries no wallet",
    );
  }
  const { userShare, serviceShare } = await openSignInWalletShares(ctx, {
    sealed: params.splitWallet.sealed,
    organizationId: params.orgId,
    otpId: params.otpId,
    targetPublicKey: params.targetPublicKey,
  });
  try {
    return await prepareSplitWallet(ctx, { userShare, serviceShare, accounts: params.splitWallet.accounts });
  } finally {
    userShare.fill(0);
    serviceShare.fill(0);
  }
}

/** The addresses whoami answers for a wallet just made (its first EVM and Solana accounts). */
function addressesOf(wallet: SplitWalletRows): { address?: string; solanaAddress?: string } {
  const evm = wallet.accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
  const sol = wallet.accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_SOLANA");
  return { ...(evm ? { address: evm.address } : {}), ...(sol ? { solanaAddress: sol.address } : {}) };
}
