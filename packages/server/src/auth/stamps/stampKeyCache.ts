import type { ServiceContext, StampKeyRow } from "../../context";
import { prepared } from "../../db/prepared";

/** A stamp key's row, with whether an app admin disabled its user (admin API). */
export type StampKeyState = StampKeyRow & { disabled_at: number | null };

/**
 * The unrevoked keys with this public key, read from the database on every stamp (one indexed lookup):
 * a session revoked or a user disabled by an app admin fails its next signature at once, on every
 * instance sharing the database, with no per-process cache to outlive the revocation. Expiry is checked
 * by the caller.
 */
export async function stampKeys(
  ctx: Pick<ServiceContext, "db">,
  publicKey: string,
): Promise<StampKeyState[]> {
  const rows = await keysByPublicKey(ctx.db, { publicKey });
  return rows.map((r) => ({ ...r, disabled_at: r.disabled_at ?? null }));
}

// Every stamped request runs it: compiled once (db/prepared.ts), not built and compiled per request.
const keysByPublicKey = prepared((db, $) =>
  db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .select([
      "api_keys.id",
      "api_keys.expires_at",
      "api_keys.org_id",
      "users.id as user_id",
      "users.app_id",
      "users.email",
      "users.disabled_at",
    ])
    .where("api_keys.public_key", "=", $("publicKey"))
    .where("api_keys.revoked_at", "is", null),
);

/** Called on every key revocation or new session: clears what older versions cached (nothing is read from it). */
export function forgetStampKeys(ctx: Pick<ServiceContext, "caches">): void {
  ctx.caches.stampKeys.clear();
}
