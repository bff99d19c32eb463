import { ErrorCode, type ErrorStatus, errorStatus } from "@latchkey/protocol";

/**
 * An error with an HTTP status and a stable code: what every 4xx answer is made from. The status comes
 * from the protocol's one code → status table.
 */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { data?: Record<string, unknown>; headers?: Record<string, string>; status?: ErrorStatus } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? errorStatus[code];
    this.data = options.data;
    this.headers = options.headers;
  }
}

/**
 * The one way to raise an API error: `throw apiError("USER_NOT_FOUND", "No user with this email")`.
 *
 * @example
 * throw apiError(ErrorCode.RATE_LIMITED, "Too many requests", { data: { retryAfterSeconds }, headers });
 */
export function apiError(
  code: ErrorCode,
  message: string,
  options?: { data?: Record<string, unknown>; headers?: Record<string, string> },
): ApiError {
  return new ApiError(code, message, options);
}

/** A 429 with `Retry-After`, shared by every throttle. */
export function retryLater(code: ErrorCode, message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(code, message, {
    data: { retryAfterSeconds },
    headers: { "retry-after": String(retryAfterSeconds) },
  });
}

export { ErrorCode };
