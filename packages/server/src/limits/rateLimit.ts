import { createHash } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import { retryLater } from "../errors";

/**
 * Fixed-window counters kept in the database, so limits hold across every instance sharing it.
 * Keys are hashed: a rate-limit row never shows an email address.
 */
export async function hit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: { key: string; limit: number; message: string },
): Promise<void> {
  const { key, limit, message } = params;
  const now = ctx.now();
  const windowSeconds = ctx.limits.windowSeconds;
  const windowMs = windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  const hashed = createHash("sha256").update(key).digest("base64url");
  const row = await ctx.db
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
    throw retryLater(ErrorCode.RATE_LIMITED, message, retryAfter);
  }
}
