import { ErrorCode, INVALID_MFA_MESSAGE, MFA_REQUIRED_MESSAGE, type MultiFactor } from "@latchkey/protocol";
import { matchTotp } from "../../crypto/totp";
import { type ApiError, apiError, retryLater } from "../../errors";
import { type FactorContext, listFactors } from "./factorStore";

/** Wrong codes in a row before a factor is locked, and for how long. */
export const MFA_MAX_FAILURES = 5;
export const MFA_LOCK_MS = 5 * 60 * 1000;

/**
 * Checks one code against one factor: locked factors refuse, a wrong code counts (five lock the factor),
 * a right code moves `last_step` forward atomically so the same code can never be used again. With
 * `stepUp`, only a verified factor added with a step-up proof is found (a factor being added, or one
 * added without a proof, proves nothing).
 */
export async function checkFactorCode(
  ctx: FactorContext,
  params: { userId: string; factorId: string; code: string; allowUnverified?: boolean; stepUp?: boolean },
): Promise<void> {
  const now = ctx.now();
  const factor = await ctx.db
    .selectFrom("mfa_factors")
    .selectAll()
    .where("id", "=", params.factorId)
    .where("user_id", "=", params.userId)
    .executeTakeFirst();
  if (
    !factor ||
    (!params.allowUnverified && factor.verified_at === null) ||
    (params.stepUp && (factor.verified_at === null || factor.added_with === null))
  ) {
    throw apiError(ErrorCode.MFA_FACTOR_NOT_FOUND, "MFA factor not found");
  }
  if (factor.locked_until !== null && factor.locked_until > now) {
    const retry = Math.ceil((factor.locked_until - now) / 1000);
    throw retryLater(ErrorCode.MFA_LOCKED, "Too many wrong codes. Try again later.", retry);
  }
  const secret = await ctx.keyring.open(factor.sealed_secret, `mfa_factor:${factor.id}`);
  const step = matchTotp(secret, params.code, now, factor.last_step);
  secret.fill(0);
  if (step === null) {
    const failures = factor.failed_attempts + 1;
    await ctx.db
      .updateTable("mfa_factors")
      .set({
        failed_attempts: failures >= MFA_MAX_FAILURES ? 0 : failures,
        locked_until: failures >= MFA_MAX_FAILURES ? now + MFA_LOCK_MS : null,
      })
      .where("id", "=", factor.id)
      .execute();
    throw apiError(ErrorCode.INVALID_MFA_CODE, INVALID_MFA_MESSAGE);
  }
  const moved = await ctx.db
    .updateTable("mfa_factors")
    .set({
      last_step: step,
      failed_attempts: 0,
      locked_until: null,
      ...(factor.verified_at === null ? { verified_at: now } : {}),
    })
    .where("id", "=", factor.id)
    .where("last_step", "<", step)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw apiError(ErrorCode.INVALID_MFA_CODE, INVALID_MFA_MESSAGE);
}

/** Every verified factor of the user must be answered by a right code. */
export async function checkAllFactors(
  ctx: FactorContext,
  params: { userId: string; given: { multiFactorId: string; multiFactorCode: string }[] },
): Promise<void> {
  const factors = await listFactors(ctx, { userId: params.userId });
  for (const f of factors) {
    const answer = params.given.find((g) => g.multiFactorId === f.multiFactorId);
    if (!answer) throw mfaRequired(factors);
    await checkFactorCode(ctx, {
      userId: params.userId,
      factorId: f.multiFactorId,
      code: answer.multiFactorCode,
    });
  }
}

export function mfaRequired(factors: MultiFactor[]): ApiError {
  return apiError(ErrorCode.MFA_REQUIRED, MFA_REQUIRED_MESSAGE, { data: { multiFactors: factors } });
}
