import { ErrorCode } from "@latchkey/protocol";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import {
  requireFreshSignIn,
  type StepUpProof,
  type StepUpProofUsed,
  spendStepUpToken,
} from "../../sessions/stepUp";
import type { ActivityContext } from "../defineActivity";

/** What a step-up guarded activity's `prepare` carries into its transaction. */
export interface SteppedUp {
  stepUp: StepUpProofUsed;
  /** The verification token's code, spent in the transaction (single use). */
  spendOtpId?: string;
}

/**
 * The step-up rule (sessions/stepUp.ts) for an activity that adds a way into the account or takes one
 * from its owner, in its `prepare`: the caller's app, then a fresh sign-in or a proof in `params`.
 *
 * @example
 * async prepare(ctx, { caller, params }) { return { ...(await requireStepUp(ctx, caller, params)) } }
 */
export async function requireStepUp(
  ctx: ActivityContext,
  caller: StampedCaller,
  params: StepUpProof,
): Promise<SteppedUp> {
  const app = await ctx.apps.byId(caller.user.appId);
  if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
  const { spendOtpId, used } = await requireFreshSignIn(ctx, {
    caller,
    appId: app.id,
    proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
  });
  return { stepUp: used, ...(spendOtpId ? { spendOtpId } : {}) };
}

/** In the activity's transaction: spends the verification token the step-up took, if it took one. */
export async function spendStepUp(tx: ActivityContext, prepared: SteppedUp): Promise<void> {
  if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
}
