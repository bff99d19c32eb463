import { createHash } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import { prepared } from "../db/prepared";
import { retryLater } from "../errors";

/**
 * Fixed-window counters kept in the database, so limits hold across every instance sharing it.
 * Keys are hashed: a rate-limit row never shows an email address.
 */
export interface LimitHit {
  key: string;
  limit: number;
  message: string;
}

const upserts = new Map<number, ReturnType<typeof prepared<{ key: string; count: number }>>>();

/** The counting upsert for `n` keys, compiled once per count (db/prepared.ts). */
function upsertCounts(n: number) {
  let q = upserts.get(n);
  if (!q) {
    q = prepared((db, $) =>
      db
        .insertInto("rate_limits")
        .values(
          Array.from({ length: n }, (_, i) => ({
            key: $(`key${i}`),
            window_start: $("windowStart"),
            count: 1,
          })),
        )
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
        .returning(["key", "count"]),
    );
    upserts.set(n, q);
  }
  return q;
}

export async function hit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: LimitHit,
): Promise<void> {
  await hitAll(ctx, [params]);
}

/**
 * Counts one request against each limit in a single statement (one round trip, one commit: on a sign-up
 * that is three limits), then refuses with the first limit, in the order given, that is over.
 */
export async function hitAll(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  hits: LimitHit[],
): Promise<void> {
  if (hits.length === 0) return;
  const now = ctx.now();
  const windowMs = ctx.limits.windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  const hashed = hits.map((h) => createHash("sha256").update(h.key).digest("base64url"));
  // One row per key: PostgreSQL refuses to update the same row twice in one statement.
  const keys = [...new Set(hashed)];
  const values: Record<string, unknown> = { windowStart };
  for (const [i, key] of keys.entries()) values[`key${i}`] = key;
  const rows = await upsertCounts(keys.length)(ctx.db, values);
  const counts = new Map(rows.map((r) => [r.key, r.count]));
  for (const [i, h] of hits.entries()) {
    if ((counts.get(hashed[i] as string) ?? 0) > h.limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw retryLater(ErrorCode.RATE_LIMITED, h.message, retryAfter);
    }
  }
}
