import type { ServiceContext, StampKeyRow } from "../../context";

/**
 * The unrevoked keys with this public key, cached for a second: the lookup is half the database work of
 * a signature. A revocation clears this service's cache at once (`forgetStampKeys`); another process may
 * accept a revoked key for at most that second. Expiry is checked on every request, never cached.
 */
const STAMP_KEY_TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

export async function stampKeys(
  ctx: Pick<ServiceContext, "db" | "now" | "caches">,
  publicKey: string,
): Promise<StampKeyRow[]> {
  const now = ctx.now();
  const cache = ctx.caches.stampKeys;
  const hit = cache.get(publicKey);
  if (hit && now - hit.at >= 0 && now - hit.at < STAMP_KEY_TTL_MS) return hit.rows;
  const rows = await ctx.db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .select([
      "api_keys.id",
      "api_keys.expires_at",
      "api_keys.org_id",
      "users.id as user_id",
      "users.app_id",
      "users.email",
    ])
    .where("api_keys.public_key", "=", publicKey)
    .where("api_keys.revoked_at", "is", null)
    .execute();
  if (rows.length > 0) {
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(publicKey, { rows, at: now });
  }
  return rows;
}

/** Called on every key revocation or new session. */
export function forgetStampKeys(ctx: Pick<ServiceContext, "caches">): void {
  ctx.caches.stampKeys.clear();
}
