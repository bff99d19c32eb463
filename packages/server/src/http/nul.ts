import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../errors";

/**
 * Refuses a NUL character in any string (or key) of a parsed JSON value. The schemas refuse every control
 * character in ids and names; this guard also covers text no schema names, so that nothing a client sends
 * can reach PostgreSQL (which refuses NUL in text) and turn into a 500.
 */
export function assertNoNul(value: unknown, depth = 0): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) {
      throw apiError(ErrorCode.INVALID_CHARACTERS, "The request must not contain NUL characters");
    }
    return;
  }
  if (typeof value !== "object" || value === null || depth > 64) return;
  if (Array.isArray(value)) {
    for (const v of value) assertNoNul(v, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    assertNoNul(k, depth + 1);
    assertNoNul(v, depth + 1);
  }
}
