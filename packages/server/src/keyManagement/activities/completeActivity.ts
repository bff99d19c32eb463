import type { ActivityType } from "@latchkey/protocol";
import { type ActivityHandler, defineActivity } from "../defineActivity";
import { type PreparedCompletion, prepareCompletion, settleCompletion } from "../policies/heldActivities";
import { signRawPayload } from "./signRawPayload";
import { signRawPayloads } from "./signRawPayloads";
import { signTransaction } from "./signTransaction";

/** What a signing policy can hold: the signatures that describe themselves to it. */
const holdable = {
  [signRawPayload.type]: signRawPayload,
  [signRawPayloads.type]: signRawPayloads,
  [signTransaction.type]: signTransaction,
} as unknown as Readonly<Partial<Record<ActivityType, ActivityHandler<ActivityType, unknown>>>>;

/**
 * `complete_activity` (split custody, docs/split-custody.md §7): the user's key holder makes a held
 * signature an app admin approved, with the user share this request carries (sealed to this body, which
 * names the activity). The held activity becomes COMPLETED with the signature, once; this activity
 * answers its id and result.
 */
export const completeActivity = defineActivity<"ACTIVITY_TYPE_COMPLETE_ACTIVITY", PreparedCompletion>({
  type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
  prepare: (ctx, { caller, params, share }) =>
    prepareCompletion(ctx, {
      caller,
      activityId: params.activityId,
      signWith: params.signWith,
      share,
      handlers: holdable,
    }),
  run: (tx, { caller, prepared }) => settleCompletion(tx, { prepared, appId: caller.user.appId }),
});
