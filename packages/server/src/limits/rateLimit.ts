import { createHash, randomInt } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Db } from "../db";
import { retryLater } from "../errors";

/**
 * Fixed-window counters kept in the database, so limits hold across every instance sharing it.
 * Keys are hashed: a rate-limit row never shows an email address.
 *
 * A limit's count is spread over up to `SHARDS` rows (`<hash>#<shard>`), each with its share of the limit
 * (shares summing to the limit exactly). A request takes one unit from a shard picked at random with one
 * conditional upsert, which adds only if that shard still has room in the current window. So many requests
 * from one address (behind a NAT, or a sign-up storm) wait on a sixteenth of each other's row locks instead
 * of queueing on one hot row, and the limit still holds exactly across instances: no shard ever counts
 * past its share, and a request is refused only once every shard has been found full in this window
 * (a full shard stays full until the window ends, so that finding is final). A window's first request
 * on a shard starts it over (same statement).
 *
 * Counting in memory first and writing in batches would spread the load too, but then each instance
 * would have to be given a fixed part of the limit, and an exact limit across instances would be lost.
 */
export interface LimitHit {
  key: string;
  limit: number;
  message: string;
}

/** Rows one limit is spread over at most (never more than the limit: each shard has room for one at least). */
export const SHARDS = 16;

/** The shards of a limit and the room of each: `limit` split as evenly as whole numbers go. */
export function shardRoom(limit: number): number[] {
  const shards = Math.max(1, Math.min(SHARDS, limit));
  const base = Math.floor(limit / shards);
  return Array.from({ length: shards }, (_, i) => base + (i < limit % shards ? 1 : 0));
}

interface Take {
  row: string;
  room: number;
}

/**
 * Takes one unit from each shard given, where it has room, in one statement: returns the rows that had.
 * Rows are locked in key order, so two requests' statements never wait on each other in a cycle.
 */
async function take(db: Db, windowStart: number, takes: Take[]): Promise<Set<string>> {
  const sorted = [...takes].sort((a, b) => (a.row < b.row ? -1 : a.row > b.row ? 1 : 0));
  const values = sql.join(sorted.map((t) => sql`(${t.row}, ${windowStart}, 1)`));
  const room = sql.join(
    sorted.map((t) => sql`when ${t.row} then cast(${t.room} as integer)`),
    sql` `,
  );
  const { rows } = await sql<{ key: string }>`
    insert into rate_limits ("key", window_start, "count") values ${values}
    on conflict ("key") do update set
      "count" = case when rate_limits.window_start < excluded.window_start then 1 else rate_limits."count" + 1 end,
      window_start = case when rate_limits.window_start < excluded.window_start then excluded.window_start else rate_limits.window_start end
    where rate_limits.window_start < excluded.window_start
      or rate_limits."count" < case excluded."key" ${room} end
    returning "key"`.execute(db);
  return new Set(rows.map((r) => r.key));
}

/**
 * A limit whose random shard was full: reads its shards (one range of the primary key) and tries those
 * with room left, one at a time in random order. False only when every shard is full in this window.
 */
async function takeAnyShard(db: Db, windowStart: number, hash: string, limit: number): Promise<boolean> {
  const rooms = shardRoom(limit);
  // Every shard key is `<hash>#<n>`, and '$' sorts right after '#'.
  const rows = await db
    .selectFrom("rate_limits")
    .select(["key", "window_start", "count"])
    .where("key", ">", `${hash}#`)
    .where("key", "<", `${hash}$`)
    .execute();
  const seen = new Map(rows.map((r) => [r.key, r]));
  const open = rooms
    .map((room, i) => ({ row: `${hash}#${i}`, room }))
    .filter(({ row, room }) => {
      const r = seen.get(row);
      return !r || r.window_start < windowStart || r.count < room;
    });
  for (let i = open.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [open[i], open[j]] = [open[j] as Take, open[i] as Take];
  }
  for (const t of open) if ((await take(db, windowStart, [t])).size > 0) return true;
  return false;
}

export async function hit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: LimitHit,
): Promise<void> {
  await hitAll(ctx, [params]);
}

/**
 * Counts one request against each limit (one statement for all of them in the usual case: on a sign-up
 * that is three limits), then refuses with the first limit, in the order given, that is over. A limit
 * with room left takes its unit even when another refuses the request.
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
  // One unit per key, against the smallest limit given for it.
  const limits = new Map<string, number>();
  for (const [i, h] of hits.entries()) {
    const key = hashed[i] as string;
    limits.set(key, Math.min(limits.get(key) ?? h.limit, h.limit));
  }
  const first = new Map<string, Take>();
  for (const [key, limit] of limits) {
    const rooms = shardRoom(limit);
    const shard = randomInt(rooms.length);
    first.set(key, { row: `${key}#${shard}`, room: rooms[shard] as number });
  }
  const taken = await take(ctx.db, windowStart, [...first.values()]);
  const over = new Set<string>();
  for (const [key, t] of first) {
    if (taken.has(t.row)) continue;
    if (!(await takeAnyShard(ctx.db, windowStart, key, limits.get(key) as number))) over.add(key);
  }
  for (const [i, h] of hits.entries()) {
    if (over.has(hashed[i] as string)) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw retryLater(ErrorCode.RATE_LIMITED, h.message, retryAfter);
    }
  }
}
