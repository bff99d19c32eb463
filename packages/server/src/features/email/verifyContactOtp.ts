import type { VerifyOtpResponse } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { checkCode, consumeCode, invalidOtp, limitCodeAttempts } from "../../otp/checkCode";
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
  await limitCodeAttempts(ctx, ip);
  const otp = await ctx.db.selectFrom("contact_otps").selectAll().where("id", "=", otpId).executeTakeFirst();
  if (!otp || otp.app_id !== app.id) throw invalidOtp();
  await checkCode(ctx, {
    table: "contact_otps",
    otp,
    code: otpCode,
    now,
    onBurn: () => ctx.audit("contact.code_burned", { appId: app.id, ip, details: { otpId } }),
  });
  await consumeCode(ctx.db, { table: "contact_otps", otpId: otp.id, now });
  return {
    verificationToken: await issueVerificationToken(ctx, { appId: app.id, contact: otp.contact, otpId }),
  };
}
