import { ErrorCode } from "@latchkey/protocol";

/** An error with an HTTP status and a stable code: what every 4xx answer is made from. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string, code: ErrorCode = ErrorCode.INVALID_REQUEST) =>
  new ApiError(400, code, message);
export const unauthorized = (message: string, code: ErrorCode = ErrorCode.UNAUTHENTICATED) =>
  new ApiError(401, code, message);
export const forbidden = (message: string, code: ErrorCode = ErrorCode.FORBIDDEN) =>
  new ApiError(403, code, message);
export const notFound = (message: string, code: ErrorCode = ErrorCode.NOT_FOUND) =>
  new ApiError(404, code, message);
