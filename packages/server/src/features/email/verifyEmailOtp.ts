import { timingSafeEqual } from "node:crypto";
import {
  ErrorCode,
  INVALID_OTP_MESSAGE,
  OTP_MAX_ATTEMPTS,
  type OtpResponse,
  type otpRequestSchema,
} from "@latchkey/protocol";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { createPendingSignIn } from "../../factors/pendingSignIn";
import { checkAllFactors, listFactors } from "../../factors/totpFactors";
import { hit } from "../../limits/rateLimit";
import { otpCodeHash } from "../../otp/emailOtp";
import { issueSession } from "../../sessions/issueSession";
import { findUserByOrg, userAddresses } from "../../users/userStore";

const invalidOtp = () => apiError(ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
const alreadyUsed = () =>
  apiError(ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
const tooManyWrong = () =>
  apiError(ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code");

/**
 * Checks a code: wrong codes count against the code (5 burn it), the right one is consumed atomically,
 * so two racing submissions can never both succeed. With a second factor on, the answer is MFA_REQUIRED
 * and a payload only this service can open.
 */
export async function verifyEmailOtp(
  ctx: ServiceContext,
  params: { app: App; request: z.output<typeof otpRequestSchema>; ip: string },
): Promise<OtpResponse> {
  const { app, request, ip } = params;
  const now = ctx.now();
  await hit(ctx, {
    key: `otp-ip:${ip}`,
    limit: ctx.limits.otpAttemptsPerIp,
    message: "Too many code attempts from this network. Try again later.",
  });
  const otp = await ctx.db.selectFrom("otps").selectAll().where("id", "=", request.otpId).executeTakeFirst();
  if (!otp || otp.app_id !== app.id || otp.org_id !== request.orgId) throw invalidOtp();
  if (otp.used_at !== null) throw otp.attempts >= OTP_MAX_ATTEMPTS ? tooManyWrong() : alreadyUsed();
  if (otp.expires_at <= now)
    throw apiError(ErrorCode.OTP_EXPIRED, "This code has expired; request a new code");

  const expected = Buffer.from(otp.code_hash, "hex");
  const actual = Buffer.from(otpCodeHash(ctx.otpKey, otp.id, request.otpCode), "hex");
  if (!timingSafeEqual(expected, actual)) {
    const updated = await ctx.db
      .updateTable("otps")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .where("attempts", "<", OTP_MAX_ATTEMPTS)
      .returning("attempts")
      .executeTakeFirst();
    if (!updated || updated.attempts >= OTP_MAX_ATTEMPTS) {
      await ctx.db
        .updateTable("otps")
        .set({ used_at: now })
        .where("id", "=", otp.id)
        .where("used_at", "is", null)
        .execute();
      await ctx.audit("otp.burned", { appId: app.id, userId: otp.user_id, ip });
      if (updated) throw invalidOtp();
      throw tooManyWrong();
    }
    throw invalidOtp();
  }
  const user = await findUserByOrg(ctx.db, otp.org_id);
  if (!user) throw invalidOtp();
  const factors = await listFactors(ctx, { userId: user.id });
  if (factors.length > 0 && request.multiFactors?.length) {
    await checkAllFactors(ctx, { userId: user.id, given: request.multiFactors });
  }
  const needsFactor = factors.length > 0 && !request.multiFactors?.length;
  const bundle = await ctx.db.transaction().execute(async (trx) => {
    const consumed = await trx
      .updateTable("otps")
      .set({ used_at: now })
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .where("attempts", "<", OTP_MAX_ATTEMPTS)
      .executeTakeFirst();
    if (Number(consumed.numUpdatedRows) !== 1) throw alreadyUsed();
    if (needsFactor) return null;
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
  // Who signed in, as whoami answers: the client connects without a stamped whoami round trip.
  const addresses = await userAddresses(ctx.db, user.orgId);
  return {
    status: "SUCCESS",
    credentialBundle: bundle,
    user: { ...(user.email ? { email: user.email } : {}), orgId: user.orgId, userId: user.id, ...addresses },
  };
}
