import { timingSafeEqual } from "node:crypto";
import { ErrorCode, INVALID_OTP_MESSAGE, OTP_MAX_ATTEMPTS } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import type { Db } from "../db";
import { apiError } from "../errors";
import { perIpLimit } from "../http/perIpLimit";
import { otpCodeHash } from "./emailOtp";

/** The tables that hold codes: sign-in codes (`otps`) and contact codes (`contact_otps`). */
export type CodeTable = "otps" | "contact_otps";

/** What checking a code reads of its row. */
export interface StoredCode {
  id: string;
  code_hash: string;
  attempts: number;
  expires_at: number;
  used_at: number | null;
}

export const invalidOtp = () => apiError(ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
export const otpAlreadyUsed = () =>
  apiError(ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
const tooManyWrong = () =>
  apiError(ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code");

/** Counts one code attempt against the caller's network (before the code is even looked up). */
export function limitCodeAttempts(ctx: Pick<ServiceContext, "db" | "now" | "limits">, ip: string) {
  return perIpLimit(ctx, "codeAttempt", ip);
}

/**
 * Checks a submitted code against its stored row (found and owned: the caller's part); each step below
 * is numbered and a code that fails one goes no further:
 *  1. a spent code is refused: OTP_ATTEMPTS_EXCEEDED when wrong codes burned it, else OTP_ALREADY_USED;
 *  2. an expired code is refused: OTP_EXPIRED;
 *  3. the code's HMAC is compared with the stored one in constant time;
 *  4. a wrong code counts against the row atomically (only while unspent and under the limit); the one
 *     that reaches OTP_MAX_ATTEMPTS burns the code (`onBurn` audits it) and answers INVALID_OTP, and one
 *     that finds the count already full answers OTP_ATTEMPTS_EXCEEDED.
 * The right code is not consumed here: the caller calls `consumeCode` once the rest of its checks pass
 * (inside its own transaction when it has one).
 */
export async function checkCode(
  ctx: Pick<ServiceContext, "db" | "otpKey">,
  params: {
    table: CodeTable;
    otp: StoredCode;
    code: string;
    now: number;
    onBurn: () => Promise<void>;
    /** Called for each wrong code (the security log's failed sign-ins). */
    onWrong?: () => Promise<void>;
  },
): Promise<void> {
  const { table, otp, code, now } = params;
  // 1.
  if (otp.used_at !== null) throw otp.attempts >= OTP_MAX_ATTEMPTS ? tooManyWrong() : otpAlreadyUsed();
  // 2.
  if (otp.expires_at <= now)
    throw apiError(ErrorCode.OTP_EXPIRED, "This code has expired; request a new code");
  // 3.
  const expected = Buffer.from(otp.code_hash, "hex");
  const actual = Buffer.from(otpCodeHash(ctx.otpKey, otp.id, code), "hex");
  if (timingSafeEqual(expected, actual)) return;
  // 4.
  await params.onWrong?.();
  const updated = await ctx.db
    .updateTable(table)
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", otp.id)
    .where("used_at", "is", null)
    .where("attempts", "<", OTP_MAX_ATTEMPTS)
    .returning("attempts")
    .executeTakeFirst();
  if (!updated || updated.attempts >= OTP_MAX_ATTEMPTS) {
    await ctx.db
      .updateTable(table)
      .set({ used_at: now })
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .execute();
    await params.onBurn();
    if (!updated) throw tooManyWrong();
  }
  throw invalidOtp();
}

/**
 * Spends a right code, once: of two racing submissions only one updates the row, and the other gets
 * OTP_ALREADY_USED.
 */
export async function consumeCode(
  db: Db,
  params: { table: CodeTable; otpId: string; now: number },
): Promise<void> {
  const consumed = await db
    .updateTable(params.table)
    .set({ used_at: params.now })
    .where("id", "=", params.otpId)
    .where("used_at", "is", null)
    .where("attempts", "<", OTP_MAX_ATTEMPTS)
    .executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1) throw otpAlreadyUsed();
}
