import { createHmac } from "node:crypto";
import { OTP_TTL_MS } from "@latchkey/protocol";
import type { App } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { prepared, rowSlots } from "../db/prepared";
import type { OtpsTable } from "../db/schema";
import { type Mail, otpMail } from "../mail/templates";
import type { UserRecord } from "../users/userStore";

/** The stored form of a code: an HMAC bound to its id, never the code itself. */
export function otpCodeHash(key: Buffer, otpId: string, code: string): string {
  return createHmac("sha256", key).update(`${otpId}:${code}`).digest("hex");
}

/** A 6-digit code, uniform over 000000–999999, from the context's CSPRNG. */
export function newOtpCode(ctx: Pick<ServiceContext, "random">): string {
  return String(ctx.random.int(1_000_000)).padStart(6, "0");
}

// Every sign-in by code inserts one: compiled once (db/prepared.ts).
const insertOtp = prepared((db, $) =>
  db
    .insertInto("otps")
    .values(
      rowSlots($, [
        "id",
        "app_id",
        "org_id",
        "user_id",
        "email",
        "code_hash",
        "attempts",
        "expires_at",
        "used_at",
        "created_at",
      ] as const),
    ),
);

/**
 * Stores a new email code (only its HMAC) and returns its id with the mail that carries it; the caller
 * sends the mail once its transaction has committed. Email sign-in and social account linking use it.
 *
 * @example
 * const { otpId, mail } = await createEmailOtp(ctx, { app, user, email });
 */
export async function createEmailOtp(
  ctx: Pick<ServiceContext, "db" | "otpKey" | "now" | "random">,
  params: { app: App; user: UserRecord; email: string },
): Promise<{ otpId: string; mail: Mail }> {
  const { app, user, email } = params;
  const now = ctx.now();
  const otpId = ctx.random.uuid();
  const code = newOtpCode(ctx);
  await insertOtp(ctx.db, {
    id: otpId,
    app_id: app.id,
    org_id: user.orgId,
    user_id: user.id,
    email,
    code_hash: otpCodeHash(ctx.otpKey, otpId, code),
    attempts: 0,
    expires_at: now + OTP_TTL_MS,
    used_at: null,
    created_at: now,
  } satisfies OtpsTable);
  return {
    otpId,
    mail: otpMail({
      to: email,
      appName: app.name,
      locale: app.locale,
      code,
      ttlMinutes: OTP_TTL_MS / 60_000,
    }),
  };
}
