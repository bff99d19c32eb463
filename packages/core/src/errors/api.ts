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

/**
 * A key-management activity that ended FAILED, REJECTED or CONSENSUS_NEEDED (spec §4). `code` is always
 * "ACTIVITY_FAILED"; which of the three it was is `activityStatus`.
 */
export class ActivityError extends LatchkeyError<"ACTIVITY_FAILED"> {
  override name = "ActivityError" as const;
  readonly activityId: string;
  readonly activityStatus: string;
  constructor(activity: { id: string; status: string; failure?: { code: string; message: string } }) {
    super(
      "ACTIVITY_FAILED",
      activity.failure?.message ?? `Activity ${activity.id} ended with status ${activity.status}`,
    );
    this.activityId = activity.id;
    this.activityStatus = activity.status;
  }
}
