import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { toActivity } from "../toActivity";
import { defineQuery } from "./defineQuery";

export const getActivity = defineQuery({
  name: "get_activity",
  async run(ctx, { caller, body }) {
    const row = await ctx.db
      .selectFrom("activities")
      .selectAll()
      .where("id", "=", body.activityId)
      .where("org_id", "=", caller.user.orgId)
      .executeTakeFirst();
    if (!row) throw apiError(ErrorCode.ACTIVITY_NOT_FOUND, `No activity ${body.activityId}`);
    const policy = await ctx.apps.signingPolicyOf(caller.user.appId);
    return { activity: toActivity(row, { required: policy?.approvals.required ?? 1 }) };
  },
});
