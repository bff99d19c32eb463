import { defineActivity } from "../defineActivity";
import { rejectHeldActivity } from "../policies/heldActivities";

/** `reject_activity`: an app admin key refuses a signature its signing policy held: it is REJECTED. */
export const rejectActivity = defineActivity({
  type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
  admin: (ctx, { admin, params }) => rejectHeldActivity(ctx, { admin: admin.key, ref: params }),
});
