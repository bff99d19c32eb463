import { ErrorCode, type MultiFactor } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import type { UserRecord } from "../../users/userStore";

/** What the MFA logic uses: the factors' table, their sealed secrets, the clock, ids and the audit log. */
export type FactorContext = Pick<ServiceContext, "db" | "keyring" | "now" | "random" | "audit">;

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
