import { createHash } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import type { Db } from "../db";
import { ApiError } from "../errors";

/**
 * Fixed-window counters kept in the database, so limits hold across every instance sharing it.
 * Keys are hashed: a rate-limit row never shows an email address.
 */
export async function hit(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
  now: number,
  message: string,
): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  const hashed = createHash("sha256").update(key).digest("base64url");
  const row = await db
    .insertInto("rate_limits")
    .values({ key: hashed, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet((eb) => ({
        count: eb
          .case()
          .when("rate_limits.window_start", "=", eb.ref("excluded.window_start"))
          .then(eb("rate_limits.count", "+", 1))
          .else(1)
          .end(),
        window_start: eb.ref("excluded.window_start"),
      })),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  if (row.count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    throw new ApiError(
      429,
      ErrorCode.RATE_LIMITED,
      message,
      { retryAfterSeconds: retryAfter },
      {
        "retry-after": String(retryAfter),
      },
    );
  }
}
