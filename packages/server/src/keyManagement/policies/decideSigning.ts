import type { ActivityType } from "@latchkey/protocol";
import {
  PREVIEWABLE_TYPES,
  type PreviewableRequest,
  type PreviewContext,
  type StoredPreview,
  storedPreviewOf,
} from "../../simulation/preview";
import { evaluatePolicy, needsSimulation, type PolicyDecision, type SigningRequest } from "./evaluatePolicy";

/**
 * The app's signing policy's decision on a signature, with its preview when one was made: a policy with
 * `netOutflowAbove` rules is decided on a simulation (made here, on the service), and a signature held for
 * the app's admins keeps its preview (decoded actions, simulation, the rule) for them to read. Other
 * signatures are decided without a simulation, so they wait on no node.
 */
export async function decideSigning(
  ctx: PreviewContext,
  params: { appId: string; type: ActivityType; params: unknown; signingRequest: SigningRequest },
): Promise<{ decision: PolicyDecision; preview?: StoredPreview }> {
  const policy = await ctx.apps.signingPolicyOf(params.appId);
  const request = { type: params.type, parameters: params.params } as PreviewableRequest;
  const previewable = PREVIEWABLE_TYPES.has(params.type);
  let preview: StoredPreview | undefined;
  if (previewable && needsSimulation(policy)) {
    preview = await previewOrNone(ctx, params.appId, request, params.signingRequest);
    const simulation = preview?.preview.simulation;
    return {
      decision: evaluatePolicy(policy, params.signingRequest, simulation ? { simulation } : {}),
      ...(preview ? { preview } : {}),
    };
  }
  const decision = evaluatePolicy(policy, params.signingRequest);
  if (decision.effect === "needs_approval" && previewable)
    preview = await previewOrNone(ctx, params.appId, request, params.signingRequest);
  return { decision, ...(preview ? { preview } : {}) };
}

/** The preview, or none when the request cannot be read for one (the policy then decides without it). */
async function previewOrNone(
  ctx: PreviewContext,
  appId: string,
  request: PreviewableRequest,
  signingRequest: SigningRequest,
): Promise<StoredPreview | undefined> {
  try {
    return await storedPreviewOf(ctx, { appId, request, signingRequest });
  } catch {
    return undefined;
  }
}
