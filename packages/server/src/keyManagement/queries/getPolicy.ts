import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { defineQuery } from "./defineQuery";
import { toPolicyInfo } from "./listPolicies";

/** `get_policy`: one rule of the signing policy of the caller's app; 404 POLICY_NOT_FOUND otherwise. */
export const getPolicy = defineQuery({
  name: "get_policy",
  async run(ctx, { caller, body }) {
    const policy = await ctx.apps.signingPolicyOf(caller.user.appId);
    const rule = policy?.rules.find((r) => r.id === body.policyId);
    if (!rule) throw apiError(ErrorCode.POLICY_NOT_FOUND, `No signing policy rule ${body.policyId}`);
    return { policy: toPolicyInfo(rule) };
  },
});
