import type { ActivityParameters, ActivityType } from "@latchkey/protocol";
import type { AdminCaller } from "../auth/stamps/authenticateAdminStamp";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../context";
import type { RequestShare } from "../custody/shareKey";
import type { SigningRequest } from "./policies/evaluatePolicy";

export type ActivityContext = Pick<
  ServiceContext,
  | "db"
  | "keyring"
  | "apps"
  | "now"
  | "random"
  | "caches"
  | "otpKey"
  | "mailer"
  | "audit"
  | "limits"
  | "serviceKeys"
  /** Derives wallets (an imported recovery phrase: import_wallet). */
  | "wallets"
> & {
  /** The chains the service reads: a signature's simulation (simulation/), when its policy needs one. */
  chains?: ServiceContext["chains"];
};

export interface ActivityInput<T extends ActivityType> {
  caller: StampedCaller;
  params: ActivityParameters<T>;
  /**
   * Split custody (docs/split-custody.md §2): the request's sealed user share, if it carries one, and the
   * exact body it is bound to. Opened only where a split wallet's key is needed, never stored or logged.
   */
  share?: RequestShare;
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
 *
 * A signature (`pure`) may describe itself to the app's signing policy (`signingRequest`): the policy
 * then decides before `pure` runs, and a refused or held activity is recorded REJECTED or
 * CONSENSUS_NEEDED with no result (keyManagement/policies). A held one runs `pure` when an app admin
 * approves it. An `admin` activity (approve/reject) is only ever run for an app admin key
 * (submitAdminActivity.ts), never for a user's session.
 */
export type ActivityHandler<T extends ActivityType, P = unknown> =
  | {
      type: T;
      pure: (ctx: ActivityContext, input: ActivityInput<T>) => Promise<object>;
      signingRequest?: (input: ActivityInput<T>) => SigningRequest;
    }
  | {
      type: T;
      admin: (ctx: ActivityContext, input: AdminActivityInput<T>) => Promise<object>;
    }
  | {
      type: T;
      prepare?: (ctx: ActivityContext, input: ActivityInput<T>) => Promise<P>;
      run: (tx: ActivityContext, input: ActivityInput<T> & { prepared: P }) => Promise<object>;
      afterCommit?: (ctx: ActivityContext, input: ActivityInput<T>) => void;
    };

export interface AdminActivityInput<T extends ActivityType> {
  admin: AdminCaller;
  params: ActivityParameters<T>;
  /** Every activity's handler by type (the registry), so a decision can run the activity it releases. */
  handlers: Readonly<Partial<Record<ActivityType, ActivityHandler<ActivityType, unknown>>>>;
}

/** Identity function that types a handler from its `type` (like wagmi's createConnector). */
export function defineActivity<T extends ActivityType, P = undefined>(
  handler: ActivityHandler<T, P>,
): ActivityHandler<T, P> {
  return handler;
}
