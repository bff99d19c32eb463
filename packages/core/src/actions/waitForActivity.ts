import type { Activity } from "@latchkey/protocol";
import type { Hex } from "viem";
import type { ActivityError, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `waitForActivity` takes. */
export interface WaitForActivityParameters {
  /** The activity to wait for: `ActivityError.activityId` of a signature held for approval. */
  activityId: string;
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Stops waiting after this long (an ActivityError, status CONSENSUS_NEEDED). Default: no limit. */
  timeoutMs?: number;
}
/** The completed activity, with what it signed in the form the signing call would have answered. */
export interface WaitForActivityReturnType {
  activity: Activity;
  /** A transaction's activity (`sign_transaction`): the signed serialized transaction. */
  signedTransaction?: Hex;
  /** A raw payload's activity (`sign_raw_payload`): hex r‖s‖v, v 27/28 for EVM, 00 for Solana. */
  signature?: Hex;
}
/** The errors `waitForActivity` may throw (discriminate on `name` and `code`). */
export type WaitForActivityErrorType =
  | ActivityError
  | SignerError<"NOT_AUTHENTICATED" | "USER_SHARE_REQUIRED">
  | SignerApiError;

/**
 * Waits for an activity the app's signing policy held for an app admin (an ActivityError with
 * `activityStatus` CONSENSUS_NEEDED): polls it every 500 ms until the admin decides. Approved, it
 * resolves with the completed activity and its signed transaction (or signature); rejected (or FAILED),
 * it throws an ActivityError with status REJECTED (FAILED). A split wallet's approved signature is made
 * here, with this device's share (docs/split-custody.md §7): keep waiting while the app is open; after
 * a reload, `completeApprovedActivities` completes what was approved meanwhile.
 *
 * @example
 * try {
 *   return await account.signTransaction(tx);
 * } catch (e) {
 *   if (!(e instanceof ActivityError) || e.activityStatus !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") throw e;
 *   const { signedTransaction } = await waitForActivity(signer, { activityId: e.activityId });
 *   return signedTransaction;
 * }
 */
export async function waitForActivity(
  signer: SignerBase,
  params: WaitForActivityParameters,
): Promise<WaitForActivityReturnType> {
  const user = await requireUser(signer);
  const activity = await signer.client.waitForActivity({
    organizationId: user.orgId,
    activityId: params.activityId,
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  const result = activity.result as {
    signTransactionResult?: { signedTransaction?: Hex };
    signRawPayloadResult?: { r: string; s: string; v: string };
  };
  const answer: WaitForActivityReturnType = { activity };
  const signed = result.signTransactionResult?.signedTransaction;
  if (signed) answer.signedTransaction = signed;
  const raw = result.signRawPayloadResult;
  if (raw) {
    const intent = activity.intent as { signRawPayloadIntentV2?: { signWith?: string } };
    const evm = intent.signRawPayloadIntentV2?.signWith?.startsWith("0x") ?? false;
    const v = evm ? (27 + Number.parseInt(raw.v, 16)).toString(16) : "00";
    answer.signature = `0x${raw.r}${raw.s}${v}`;
  }
  return answer;
}
