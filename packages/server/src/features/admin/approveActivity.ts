import { activities } from "../../keyManagement/activities";
import type { AdminActivityInput } from "../../keyManagement/defineActivity";
import { approveHeldActivity } from "../../keyManagement/policies/heldActivities";
import { defineAdminHandler } from "./adminRoute";

/** Every activity's handler, as a held activity's approval runs it (submitAdminActivity.ts passes the same). */
const handlers = activities as unknown as AdminActivityInput<"ACTIVITY_TYPE_APPROVE_ACTIVITY">["handlers"];

/**
 * `approve_activity`: what `latchkey activity approve` does, from the admin API: the app's policy is
 * asked again, then the held signature is made (COMPLETED) once, whoever else decides at the same time.
 */
export const approveActivity = defineAdminHandler({
  name: "approve_activity",
  async run(ctx, { admin, body }) {
    return approveHeldActivity(ctx, { admin, ref: { activityId: body.activityId }, handlers });
  },
});
