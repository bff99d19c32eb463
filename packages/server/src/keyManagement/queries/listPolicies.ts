import type { QueryResponse } from "@latchkey/protocol";
import type { SigningPolicyRule } from "../policies/policySchema";
import { defineQuery } from "./defineQuery";

type PolicyInfo = QueryResponse<"get_policy">["policy"];

/** A signing-policy rule as the policy queries describe it (read-only: policies live in the config). */
export function toPolicyInfo(rule: SigningPolicyRule): PolicyInfo {
  const { id, effect, description, ...condition } = rule;
  return {
    policyId: id,
    policyName: description ?? id,
    effect: effect === "deny" ? "EFFECT_DENY" : "EFFECT_ALLOW",
    ...(effect === "needs_approval" ? { consensus: "an app admin key approves (approve_activity)" } : {}),
    condition,
    notes: description ?? "",
  };
}

/**
 * `list_policies`: the rules of the signing policy of the caller's app, in the order they are asked
 * (the first rule that matches decides; DESIGN §9). An app without a policy has none.
 */
export const listPolicies = defineQuery({
  name: "list_policies",
  async run(ctx, { caller }) {
    const policy = await ctx.apps.signingPolicyOf(caller.user.appId);
    return { policies: (policy?.rules ?? []).map(toPolicyInfo) };
  },
});
