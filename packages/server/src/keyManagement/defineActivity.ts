import type { ActivityParameters, ActivityType } from "@latchkey/protocol";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../context";

export type ActivityContext = Pick<
  ServiceContext,
  "db" | "keyring" | "apps" | "now" | "random" | "caches" | "otpKey" | "mailer" | "audit"
>;

export interface ActivityInput<T extends ActivityType> {
  caller: StampedCaller;
  params: ActivityParameters<T>;
}

/**
 * One key-management activity (DESIGN §3.3). Its path, intent and result names and its parameters come
 * from the protocol's `activityTypes` table. Either
 * - `pure`: the result is computed before any write (signatures: RFC 6979 makes a lost race produce the
 *   same answer) and the activity is inserted once; or
 * - `run`: the change happens in one transaction with the activity's record, after an optional
 *   `prepare` done outside it (network calls, attestation checks), and `afterCommit` runs once it is
 *   committed (e.g. forgetting cached keys).
 * Every parameter `userId` must be the caller's own: submitActivity.ts checks it for every activity.
 */
export type ActivityHandler<T extends ActivityType, P = unknown> =
  | {
      type: T;
      pure: (ctx: ActivityContext, input: ActivityInput<T>) => Promise<object>;
    }
  | {
      type: T;
      prepare?: (ctx: ActivityContext, input: ActivityInput<T>) => Promise<P>;
      run: (tx: ActivityContext, input: ActivityInput<T> & { prepared: P }) => Promise<object>;
      afterCommit?: (ctx: ActivityContext, input: ActivityInput<T>) => void;
    };

/** Identity function that types a handler from its `type` (like wagmi's createConnector). */
export function defineActivity<T extends ActivityType, P = undefined>(
  handler: ActivityHandler<T, P>,
): ActivityHandler<T, P> {
  return handler;
}
