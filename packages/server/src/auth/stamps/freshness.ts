import { ErrorCode, STAMP_MAX_AGE_MS, STAMP_MAX_FUTURE_MS } from "@latchkey/protocol";
import { apiError } from "../../errors";

/** A stamped body's `timestampMs` must be within 5 minutes before and 1 minute after now (DESIGN §3.2). */
export function assertFreshTimestamp(timestampMs: unknown, now: number, what: string): void {
  const ts =
    typeof timestampMs === "string" && /^\d{1,16}$/.test(timestampMs) ? Number(timestampMs) : Number.NaN;
  if (!Number.isFinite(ts)) throw apiError(ErrorCode.INVALID_REQUEST, `timestampMs is required on ${what}`);
  if (ts < now - STAMP_MAX_AGE_MS) throw apiError(ErrorCode.STAMP_EXPIRED, "The request is too old");
  if (ts > now + STAMP_MAX_FUTURE_MS) {
    throw apiError(ErrorCode.STAMP_IN_FUTURE, "The request's timestamp is in the future");
  }
}
