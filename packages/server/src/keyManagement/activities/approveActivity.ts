import { defineActivity } from "../defineActivity";
import { approveHeldActivity } from "../policies/heldActivities";

/**
 * `approve_activity`: an app admin key releases a signature its signing policy held (CONSENSUS_NEEDED):
 * it is signed and COMPLETED, once, however many admins or instances approve at the same time.
 */
export const approveActivity = defineActivity({
  type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
  admin: (ctx, { admin, params, handlers }) =>
    approveHeldActivity(ctx, { admin: admin.key, ref: params, handlers }),
});
