import type { Activity } from "@latchkey/protocol";
import { ActivityError, type SignerApiError, type SignerError } from "../errors";
import { requireSigningUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import { type WaitForActivityReturnType, waitForActivity } from "./waitForActivity";

/** What `completeApprovedActivities` answers: each held signature it completed, as `waitForActivity` does. */
export type CompleteApprovedActivitiesReturnType = WaitForActivityReturnType[];
/** The errors `completeApprovedActivities` may throw (discriminate on `name` and `code`). */
export type CompleteApprovedActivitiesErrorType =
  | SignerError<"NOT_AUTHENTICATED" | "USER_SHARE_REQUIRED">
  | SignerApiError;

/**
 * Completes the user's held signatures of a split wallet that an app admin approved while the app was
 * closed (docs/split-custody.md §7): lists the user's activities still CONSENSUS_NEEDED with an
 * unexpired `approval`, and completes each with this device's share (`complete_activity`). Call it after
 * sign-in; a signature completed elsewhere meanwhile, or refused since, is left out. A device without
 * the wallet's share throws USER_SHARE_REQUIRED (`restoreWallet` first).
 *
 * @example
 * for (const { activity, signature, signedTransaction } of await completeApprovedActivities(signer)) {
 *   app.deliver(activity.id, signedTransaction ?? signature);
 * }
 */
export async function completeApprovedActivities(
  signer: SignerBase,
): Promise<CompleteApprovedActivitiesReturnType> {
  const user = await requireSigningUser(signer);
  const { activities } = await signer.client.query<{ activities: Activity[] }>("list_activities", {
    organizationId: user.orgId,
    filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED"],
  });
  const now = signer.sessionManager.clock.now();
  const approved = activities.filter((a) => a.approval && Number(a.approval.expiresAt.seconds) * 1000 > now);
  const completed: CompleteApprovedActivitiesReturnType = [];
  // One at a time, oldest first: each completion is one signature made with the share.
  for (const activity of approved.reverse()) {
    try {
      completed.push(await waitForActivity(signer, { activityId: activity.id, timeoutMs: 0 }));
    } catch (e) {
      if (!(e instanceof ActivityError)) throw e;
    }
  }
  return completed;
}
