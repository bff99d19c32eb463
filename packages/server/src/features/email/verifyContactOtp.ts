import { timingSafeEqual } from "node:crypto";
import { ErrorCode, INVALID_OTP_MESSAGE, OTP_MAX_ATTEMPTS, type VerifyOtpResponse } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { hit } from "../../limits/rateLimit";
import { otpCodeHash } from "../../otp/emailOtp";
import { issueVerificationToken } from "../../otp/verificationToken";

/**
 * `/v1/verify-otp`: the right code for a contact code answers a verification token naming the contact.
 * As with sign-in codes: wrong codes count (5 burn it), the right one is consumed atomically.
 *
 * @example
 * const { verificationToken } = await verifyContactOtp(ctx, { app, otpId, otpCode: "123456", ip });
 */
export async function verifyContactOtp(
  ctx: Pick<ServiceContext, "db" | "now" | "otpKey" | "limits" | "audit">,
  params: { app: App; otpId: string; otpCode: string; ip: string },
): Promise<VerifyOtpResponse> {
  const { app, otpId, otpCode, ip } = params;
  const now = ctx.now();
  await hit(ctx, {
    key: `otp-ip:${ip}`,
    limit: ctx.limits.otpAttemptsPerIp,
    message: "Too many code attempts from this network. Try again later.",
  });
  const invalid = () => apiError(ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
  const otp = await ctx.db.selectFrom("contact_otps").selectAll().where("id", "=", otpId).executeTakeFirst();
  if (!otp || otp.app_id !== app.id) throw invalid();
  if (otp.used_at !== null)
    throw otp.attempts >= OTP_MAX_ATTEMPTS
      ? apiError(ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code")
      : apiError(ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
  if (otp.expires_at <= now)
    throw apiError(ErrorCode.OTP_EXPIRED, "This code has expired; request a new code");

  const expected = Buffer.from(otp.code_hash, "hex");
  const actual = Buffer.from(otpCodeHash(ctx.otpKey, otp.id, otpCode), "hex");
  if (!timingSafeEqual(expected, actual)) {
    const updated = await ctx.db
      .updateTable("contact_otps")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .where("attempts", "<", OTP_MAX_ATTEMPTS)
      .returning("attempts")
      .executeTakeFirst();
    if (!updated || updated.attempts >= OTP_MAX_ATTEMPTS) {
      await ctx.db
        .updateTable("contact_otps")
        .set({ used_at: now })
        .where("id", "=", otp.id)
        .where("used_at", "is", null)
        .execute();
      await ctx.audit("contact.code_burned", { appId: app.id, ip, details: { otpId } });
      if (!updated)
        throw apiError(ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code");
    }
    throw invalid();
  }
  const consumed = await ctx.db
    .updateTable("contact_otps")
    .set({ used_at: now })
    .where("id", "=", otp.id)
    .where("used_at", "is", null)
    .where("attempts", "<", OTP_MAX_ATTEMPTS)
    .executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1)
    throw apiError(ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
  return {
    verificationToken: await issueVerificationToken(ctx, { appId: app.id, contact: otp.contact, otpId }),
  };
}
