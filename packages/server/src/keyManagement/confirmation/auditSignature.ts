import type { ActivityType } from "@latchkey/protocol";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import {
  auditSummary,
  PREVIEWABLE_TYPES,
  type PreviewableRequest,
  previewSigningRequest,
} from "../../simulation/preview";
import type { ActivityContext } from "../defineActivity";
import type { SigningRequest } from "../policies/evaluatePolicy";

/**
 * A completed signature in the security log (issue 46): `signing.completed` with the activity, its type,
 * the decoded summary in English (what the confirmation step showed: decoded, not simulated again) and
 * whether the user confirmed it in the auth frame. A request the decoder cannot read is logged without a
 * summary; the log never fails a signature that was made.
 */
export async function auditCompletedSignature(
  ctx: Pick<ActivityContext, "apps" | "audit" | "chains">,
  params: {
    caller: StampedCaller;
    type: ActivityType;
    parameters: unknown;
    signingRequest: SigningRequest;
    activityId: string;
    confirmedInFrame: boolean;
  },
): Promise<void> {
  const { caller } = params;
  let summary: string[] | undefined;
  if (PREVIEWABLE_TYPES.has(params.type)) {
    try {
      const preview = await previewSigningRequest(ctx, {
        appId: caller.user.appId,
        request: { type: params.type, parameters: params.parameters } as PreviewableRequest,
        signingRequest: params.signingRequest,
        simulate: false,
      });
      summary = auditSummary({ preview, summaries: { en: preview.summary } as never });
    } catch {
      summary = undefined;
    }
  }
  await ctx
    .audit("signing.completed", {
      appId: caller.user.appId,
      userId: caller.user.id,
      details: {
        activityId: params.activityId,
        type: params.type,
        ...(summary ? { summary } : {}),
        confirmedInFrame: params.confirmedInFrame,
      },
    })
    .catch(() => {});
}
