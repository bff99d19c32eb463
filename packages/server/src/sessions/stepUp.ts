import { ErrorCode, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../context";
import type { SignedInBy } from "../db/schema";
import { apiError } from "../errors";
import { checkFactorCode, listFactors } from "../factors/totpFactors";
import { readVerificationToken } from "../otp/verificationToken";

/** The ways a user can prove a fresh sign-in, as `STEP_UP_REQUIRED`'s `data.stepUpMethods` lists them. */
export type StepUpMethod = "email" | "passkey" | "totp";

/** Sessions that count as a fresh sign-in while young: a social sign-in proves nothing about this device. */
const FRESH_SIGN_INS: ReadonlySet<SignedInBy> = new Set(["email_code", "magic_link", "passkey", "totp"]);

type StepUpContext = Pick<ServiceContext, "db" | "now" | "otpKey" | "keyring" | "random" | "audit">;

export interface StepUpProof {
  /** A verification token from `/v1/verify-otp` for the user's own email. */
  verificationToken?: string | undefined;
  /** A code of one of the user's authenticator-app factors. */
  multiFactor?: { multiFactorId: string; multiFactorCode: string } | undefined;
}

/**
 * Checks that `caller` signed in within `STEP_UP_MAX_AGE_MS`, by the first of:
 *  1. the request is passkey-stamped (a user presence for this very body);
 *  2. `multiFactor` is a right code of the user's authenticator app (counted like any MFA code:
 *     five wrong ones lock the factor, a code is accepted once);
 *  3. `verificationToken` proves the user's current email by a code verified within the window; it is
 *     answered as `spendOtpId`, which the caller spends in its transaction (single use);
 *  4. the stamping session was issued by an email-code, magic-link, passkey or TOTP sign-in within the window.
 * Otherwise STEP_UP_REQUIRED (403) with `data.stepUpMethods`: what the user can re-authenticate with.
 *
 * @example
 * const { spendOtpId } = await requireFreshSignIn(ctx, { caller, proof: params });
 */
export async function requireFreshSignIn(
  ctx: StepUpContext,
  params: { caller: StampedCaller; appId: string; proof: StepUpProof },
): Promise<{ spendOtpId?: string }> {
  const { caller, proof } = params;
  const user = caller.user;
  const since = ctx.now() - STEP_UP_MAX_AGE_MS;
  // 1.
  if (caller.passkey) return {};
  // 2.
  if (proof.multiFactor) {
    await checkFactorCode(ctx, {
      userId: user.id,
      factorId: proof.multiFactor.multiFactorId,
      code: proof.multiFactor.multiFactorCode,
    });
    return {};
  }
  // 3.
  if (proof.verificationToken) {
    const proven = await readVerificationToken(ctx, { appId: params.appId, token: proof.verificationToken });
    if (!user.email || proven.contact !== user.email)
      throw apiError(
        ErrorCode.INVALID_VERIFICATION_TOKEN,
        "The verification token is not for this account's email",
      );
    const otp = await ctx.db
      .selectFrom("contact_otps")
      .select(["used_at", "token_used_at"])
      .where("id", "=", proven.otpId)
      .executeTakeFirst();
    if (!otp || otp.token_used_at !== null)
      throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "This verification token was already used");
    if (otp.used_at === null || otp.used_at < since) throw await stepUpRequired(ctx, user);
    return { spendOtpId: proven.otpId };
  }
  // 4.
  if (caller.apiKeyId) {
    const session = await ctx.db
      .selectFrom("api_keys")
      .select(["signed_in_by", "created_at"])
      .where("id", "=", caller.apiKeyId)
      .executeTakeFirst();
    if (session?.signed_in_by && FRESH_SIGN_INS.has(session.signed_in_by) && session.created_at >= since)
      return {};
  }
  throw await stepUpRequired(ctx, user);
}

/** Spends the verification token `requireFreshSignIn` accepted; in the transaction of the change it allows. */
export async function spendStepUpToken(
  ctx: Pick<ServiceContext, "db" | "now">,
  otpId: string,
): Promise<void> {
  const spent = await ctx.db
    .updateTable("contact_otps")
    .set({ token_used_at: ctx.now() })
    .where("id", "=", otpId)
    .where("token_used_at", "is", null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1)
    throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "This verification token was already used");
}

async function stepUpRequired(ctx: Pick<ServiceContext, "db">, user: StampedCaller["user"]) {
  const passkey = await ctx.db
    .selectFrom("authenticators")
    .select("id")
    .where("user_id", "=", user.id)
    .executeTakeFirst();
  const factors = await listFactors(ctx, { userId: user.id });
  const stepUpMethods: StepUpMethod[] = [
    ...(user.email ? (["email"] as const) : []),
    ...(passkey ? (["passkey"] as const) : []),
    ...(factors.length ? (["totp"] as const) : []),
  ];
  return apiError(ErrorCode.STEP_UP_REQUIRED, "This needs a fresh sign-in: confirm it's you", {
    data: { stepUpMethods },
  });
}
