import type { ErrorCode } from "@latchkey/protocol";
import { LatchkeyError } from "./base";
import type { ApiErrorCode } from "./codes";

/** A second factor the service asks for (its id and type), from an MFA-required answer. */
export interface MultiFactor {
  multiFactorId: string;
  multiFactorType?: "totp";
}

/**
 * A non-2xx answer of the service. `message` and `code` are the service's own (`error`/`message` and
 * `code` of the body); `responseText` is the raw body, which the UI may parse itself (DESIGN §3.1).
 */
export class SignerApiError<C extends ApiErrorCode = ApiErrorCode> extends LatchkeyError<C> {
  override name = "SignerApiError" as const;
  readonly status: number;
  readonly path: string;
  readonly data: Record<string, unknown> | undefined;
  readonly details: unknown[] | undefined;
  readonly responseText: string;
  /** Present when the service asks for a second factor (`data.multiFactors`). */
  readonly multiFactors: MultiFactor[] | undefined;
  constructor(args: { status: number; path: string; responseText: string }) {
    let body: { error?: unknown; message?: unknown; code?: unknown; data?: unknown; details?: unknown } = {};
    try {
      body = JSON.parse(args.responseText) as typeof body;
    } catch {}
    const message =
      typeof body.error === "string"
        ? body.error
        : typeof body.message === "string"
          ? body.message
          : args.responseText || `HTTP ${args.status}`;
    const code = typeof body.code === "string" ? (body.code as ErrorCode) : "HTTP_ERROR";
    super(code as C, message);
    this.status = args.status;
    this.path = args.path;
    this.responseText = args.responseText;
    this.data =
      typeof body.data === "object" && body.data !== null
        ? (body.data as Record<string, unknown>)
        : undefined;
    this.details = Array.isArray(body.details) ? body.details : undefined;
    const factors = this.data?.multiFactors;
    this.multiFactors = Array.isArray(factors) ? (factors as MultiFactor[]) : undefined;
  }
}

/** What an activity's status means, for an error whose activity carries no failure message. */
function statusMessage(id: string, status: string): string {
  switch (status) {
    case "ACTIVITY_STATUS_REJECTED":
      return `Activity ${id} was rejected by the app's signing policy`;
    case "ACTIVITY_STATUS_CONSENSUS_NEEDED":
      return `Activity ${id} is waiting for an app admin's approval`;
    case "ACTIVITY_STATUS_FAILED":
      return `Activity ${id} failed`;
    default:
      return `Activity ${id} ended with status ${status}`;
  }
}

/**
 * A key-management activity that ended FAILED, REJECTED or CONSENSUS_NEEDED (spec §4). `code` is always
 * "ACTIVITY_FAILED"; which of the three it was is `activityStatus`, and `activityId` names it:
 * - REJECTED: the app's signing policy (or an app admin) refused it; the message says which rule;
 * - CONSENSUS_NEEDED: the policy holds it until an app admin approves or rejects it; wait for that with
 *   `waitForActivity(signer, { activityId })`;
 * - FAILED: the service could not complete it.
 *
 * @example
 * try {
 *   await account.signTransaction(tx);
 * } catch (e) {
 *   if (e instanceof ActivityError && e.activityStatus === "ACTIVITY_STATUS_CONSENSUS_NEEDED")
 *     showPending(e.activityId);
 * }
 */
export class ActivityError extends LatchkeyError<"ACTIVITY_FAILED"> {
  override name = "ActivityError" as const;
  readonly activityId: string;
  readonly activityStatus: string;
  /** The activity's failure code, e.g. POLICY_DENIED for a policy's refusal. */
  readonly failureCode: string | undefined;
  constructor(
    activity: { id: string; status: string; failure?: { code: string; message: string } },
    options?: { message?: string; cause?: unknown },
  ) {
    super(
      "ACTIVITY_FAILED",
      options?.message ?? activity.failure?.message ?? statusMessage(activity.id, activity.status),
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.activityId = activity.id;
    this.activityStatus = activity.status;
    this.failureCode = activity.failure?.code;
  }
}
