import { ErrorCode, INVALID_MFA_MESSAGE, MFA_REQUIRED_MESSAGE, type MultiFactor } from "@latchkey/protocol";
import type { App } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { matchTotp, newTotpSecret, otpauthUrl } from "../crypto/totp";
import { type ApiError, apiError, retryLater } from "../errors";
import type { UserRecord } from "../users/userStore";

type FactorContext = Pick<ServiceContext, "db" | "keyring" | "now" | "random" | "audit">;

/** Wrong codes in a row before a factor is locked, and for how long. */
export const MFA_MAX_FAILURES = 5;
export const MFA_LOCK_MS = 5 * 60 * 1000;

/**
 * The user's factors, verified ones only unless `verifiedOnly` is false; with `stepUpOnly`, only those
 * added with a step-up proof (the ones a step-up accepts).
 */
export async function listFactors(
  ctx: Pick<ServiceContext, "db">,
  params: { userId: string; verifiedOnly?: boolean; stepUpOnly?: boolean },
): Promise<MultiFactor[]> {
  let q = ctx.db.selectFrom("mfa_factors").select(["id", "type"]).where("user_id", "=", params.userId);
  if (params.verifiedOnly ?? true) q = q.where("verified_at", "is not", null);
  if (params.stepUpOnly) q = q.where("added_with", "is not", null);
  const rows = await q.orderBy("created_at").execute();
  return rows.map((r) => ({ multiFactorId: r.id, multiFactorType: r.type }));
}

/**
 * Starts a TOTP factor: a 160-bit secret, sealed at rest; it counts once a first code verifies it.
 * `addedWith` is the step-up proof the request came with (see sessions/stepUp.ts).
 */
export async function requestTotp(
  ctx: FactorContext,
  params: { app: App; user: UserRecord; addedWith: string | null },
) {
  const { app, user } = params;
  const now = ctx.now();
  // Only one unverified factor at a time: asking again replaces it.
  await ctx.db
    .deleteFrom("mfa_factors")
    .where("user_id", "=", user.id)
    .where("verified_at", "is", null)
    .execute();
  const id = ctx.random.uuid();
  const secret = newTotpSecret();
  await ctx.db
    .insertInto("mfa_factors")
    .values({
      id,
      user_id: user.id,
      type: "totp",
      sealed_secret: ctx.keyring.seal(secret, `mfa_factor:${id}`),
      verified_at: null,
      last_step: 0,
      failed_attempts: 0,
      locked_until: null,
      added_with: params.addedWith,
      created_at: now,
    })
    .execute();
  const url = otpauthUrl({ secret, issuer: app.name, account: user.email ?? user.id });
  secret.fill(0);
  await ctx.audit("mfa.requested", {
    appId: app.id,
    userId: user.id,
    details: { stepUp: params.addedWith },
  });
  return { multiFactorType: "totp" as const, multiFactorId: id, multiFactorTotpUrl: url };
}

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

/** The factor being added (or re-verified): whether it was asked for with a step-up proof, and when. */
export async function factorProof(
  ctx: Pick<ServiceContext, "db">,
  params: { userId: string; factorId: string },
): Promise<{ addedWith: string | null; createdAt: number } | undefined> {
  const row = await ctx.db
    .selectFrom("mfa_factors")
    .select(["added_with", "created_at"])
    .where("id", "=", params.factorId)
    .where("user_id", "=", params.userId)
    .executeTakeFirst();
  return row ? { addedWith: row.added_with, createdAt: row.created_at } : undefined;
}

/** Records the step-up proof a factor was verified with (its request's proof was too old or missing). */
export async function setFactorProof(
  ctx: Pick<ServiceContext, "db">,
  params: { factorId: string; addedWith: string },
): Promise<void> {
  await ctx.db
    .updateTable("mfa_factors")
    .set({ added_with: params.addedWith })
    .where("id", "=", params.factorId)
    .execute();
}

/** Removes factors of the user (all must be theirs). */
export async function deleteFactors(
  ctx: FactorContext,
  params: { user: UserRecord; multiFactorIds: string[]; stepUp: string },
): Promise<MultiFactor[]> {
  const { user, multiFactorIds: ids } = params;
  const mine = await ctx.db.selectFrom("mfa_factors").select("id").where("user_id", "=", user.id).execute();
  const have = new Set(mine.map((m) => m.id));
  if (!ids.every((id) => have.has(id)))
    throw apiError(ErrorCode.MFA_FACTOR_NOT_FOUND, "MFA factor not found");
  await ctx.db.deleteFrom("mfa_factors").where("user_id", "=", user.id).where("id", "in", ids).execute();
  await ctx.audit("mfa.removed", { appId: user.appId, userId: user.id, details: { stepUp: params.stepUp } });
  return listFactors(ctx, { userId: user.id });
}
