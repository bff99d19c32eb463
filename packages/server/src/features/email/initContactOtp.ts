import { type InitOtpResponse, OTP_TTL_MS } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { contactCodeMail } from "../../mail/templates";
import { newOtpCode, otpCodeHash } from "../../otp/emailOtp";
import { throttleMail } from "./emailChallenge";

/**
 * `/v1/init-otp`: mails a code that proves `contact` (before it becomes a sign-in method). Only the
 * code's HMAC is stored; mail to one address and from one network is rate-limited like sign-in mail.
 *
 * @example
 * const { otpId } = await initContactOtp(ctx, { app, contact: "new@example.com", ip });
 */
export async function initContactOtp(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "otpKey" | "limits" | "mailer" | "audit">,
  params: { app: App; contact: string; ip: string },
): Promise<InitOtpResponse> {
  const { app, contact, ip } = params;
  await throttleMail(ctx, { email: contact, ip });
  const now = ctx.now();
  const otpId = ctx.random.uuid();
  const code = newOtpCode(ctx);
  await ctx.db
    .insertInto("contact_otps")
    .values({
      id: otpId,
      app_id: app.id,
      contact,
      code_hash: otpCodeHash(ctx.otpKey, otpId, code),
      attempts: 0,
      expires_at: now + OTP_TTL_MS,
      used_at: null,
      token_used_at: null,
      created_at: now,
    })
    .execute();
  ctx.mailer.send(
    contactCodeMail({
      to: contact,
      appName: app.name,
      locale: app.locale,
      code,
      ttlMinutes: OTP_TTL_MS / 60_000,
    }),
  );
  await ctx.audit("contact.code_sent", { appId: app.id, ip, details: { otpId } });
  return { otpId };
}
