import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";

/** What a nonce was issued for. */
export interface IssuedNonce {
  /** Lower case. */
  address: string;
  chainId: number;
}

/**
 * Spends a SIWE nonce for `appId`: the first presentation marks it used in one statement (`UPDATE … WHERE
 * used_at IS NULL RETURNING`), whatever the outcome of the rest of the verification, so two requests
 * (or two instances on one PostgreSQL) can never both spend it. Refuses a nonce that is unknown or
 * another app's (SIWE_NONCE_UNKNOWN: another app's nonce is burnt, never revealed), already presented
 * (SIWE_NONCE_USED) or expired (SIWE_NONCE_EXPIRED).
 *
 * @example
 * const { address, chainId } = await consumeNonce(ctx, { appId: app.id, nonce: message.nonce });
 */
export async function consumeNonce(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { appId: string; nonce: string },
): Promise<IssuedNonce> {
  const now = ctx.now();
  const spent = await ctx.db
    .updateTable("siwe_nonces")
    .set({ used_at: now })
    .where("nonce", "=", params.nonce)
    .where("used_at", "is", null)
    .returning(["app_id", "address", "chain_id", "expires_at"])
    .executeTakeFirst();
  if (!spent) {
    const known = await ctx.db
      .selectFrom("siwe_nonces")
      .select("app_id")
      .where("nonce", "=", params.nonce)
      .executeTakeFirst();
    if (known?.app_id === params.appId)
      throw apiError(ErrorCode.SIWE_NONCE_USED, "The nonce was already used: ask for a new one");
    throw apiError(ErrorCode.SIWE_NONCE_UNKNOWN, "The nonce was not issued to this app");
  }
  if (spent.app_id !== params.appId)
    throw apiError(ErrorCode.SIWE_NONCE_UNKNOWN, "The nonce was not issued to this app");
  if (spent.expires_at <= now)
    throw apiError(ErrorCode.SIWE_NONCE_EXPIRED, "The nonce has expired: ask for a new one");
  return { address: spent.address, chainId: Number(spent.chain_id) };
}
