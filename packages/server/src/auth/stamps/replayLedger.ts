import { createHash } from "node:crypto";
import { ErrorCode, STAMP_MAX_AGE_MS, STAMP_MAX_FUTURE_MS } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";

/**
 * The ledger of single-use stamped bodies (DESIGN §3.2). It is keyed on *what was signed*, the SHA-256
 * of the exact body, never on the stamp's text or signature: an ECDSA signature has a twin (r, n - s)
 * that verifies as well, and the service accepts both (browsers and @turnkey/api-key-stamper send
 * either), so the twin of a used stamp signs the same body and is refused here. The body alone, without
 * the key: the same body stamped again by another session of the user is refused as well. A body is
 * recorded for as long as its timestamp could pass the freshness window; the sweeper deletes older
 * records.
 */
export function bodyHash(body: string): string {
  return createHash("sha256").update(body).digest("base64url");
}

export async function assertBodyUnused(ctx: Pick<ServiceContext, "db">, body: string): Promise<void> {
  const seen = await ctx.db
    .selectFrom("stamp_replays")
    .select("hash")
    .where("hash", "=", bodyHash(body))
    .executeTakeFirst();
  if (seen) throw apiError(ErrorCode.STAMP_REPLAYED, "This stamp was already used");
}

/** Records the body as used; throws STAMP_REPLAYED if it already was (atomic, across processes). */
export async function consumeBody(ctx: Pick<ServiceContext, "db" | "now">, body: string): Promise<void> {
  const inserted = await ctx.db
    .insertInto("stamp_replays")
    .values({ hash: bodyHash(body), expires_at: ctx.now() + STAMP_MAX_AGE_MS + STAMP_MAX_FUTURE_MS })
    .onConflict((oc) => oc.column("hash").doNothing())
    .returning("hash")
    .executeTakeFirst();
  if (!inserted) throw apiError(ErrorCode.STAMP_REPLAYED, "This stamp was already used");
}
