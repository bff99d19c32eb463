import type { ErrorCode } from "@latchkey/protocol";

/**
 * A refusal of the service: its stable `code` (e.g. `GRANT_LIMIT_EXCEEDED`, `GRANT_REVOKED`,
 * `GRANT_DENIED`), the HTTP `status`, and `data` where the code carries some (`data.limit` for a cap,
 * `data.activityId` for a refused signature). `HTTP_ERROR` when the answer was not the service's JSON.
 *
 * @example
 * try { await backend.signMessage({ userId, grantId, message: "hi" }); }
 * catch (e) { if (e instanceof BackendApiError && e.code === "GRANT_REVOKED") forget(grantId); }
 */
export class BackendApiError extends Error {
  readonly code: ErrorCode | "HTTP_ERROR";
  readonly status: number;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode | "HTTP_ERROR",
    message: string,
    status: number,
    data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "BackendApiError";
    this.code = code;
    this.status = status;
    this.data = data;
  }
}
