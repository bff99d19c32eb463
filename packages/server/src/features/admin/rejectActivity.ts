import { rejectHeldActivity } from "../../keyManagement/policies/heldActivities";
import { defineAdminHandler } from "./adminRoute";

/** `reject_activity`: the held signature is REJECTED and never made. */
export const rejectActivity = defineAdminHandler({
  name: "reject_activity",
  async run(ctx, { admin, body }) {
    return rejectHeldActivity(ctx, { admin, ref: { activityId: body.activityId } });
  },
});
