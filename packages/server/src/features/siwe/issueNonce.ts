import { ErrorCode, SIWE_NONCE_TTL_MS, type SiweNonceResponse } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** 24 letters and digits: about 143 bits (EIP-4361 asks for at least 8 alphanumeric characters). */
export const SIWE_NONCE_LENGTH = 24;

/** When the service names chains, only those sign in: a message for another is refused as early as here. */
export function assertChainSupported(ctx: Pick<ServiceContext, "chains">, chainId: number): void {
  if (ctx.chains.size > 0 && !ctx.chains.has(chainId))
    throw apiError(
      ErrorCode.SIWE_CHAIN_NOT_SUPPORTED,
      `Chain ${chainId} is not supported here; supported chains: ${[...ctx.chains.keys()].join(", ")}`,
    );
}

/**
 * Issues a single-use SIWE nonce bound to the app, the address (lower case) and the chain, valid for
 * SIWE_NONCE_TTL_MS. Nonces that expired more than one lifetime ago are deleted on the way: until then a
 * late verification still hears "expired" rather than "unknown".
 *
 * @example
 * const { nonce, issuedAt, expirationTime } = await issueNonce(ctx, { app, address, chainId: 1 });
 */
export async function issueNonce(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "chains">,
  params: { app: App; address: string; chainId: number },
): Promise<SiweNonceResponse> {
  assertChainSupported(ctx, params.chainId);
  const now = ctx.now();
  let nonce = "";
  // randomInt is uniform: no modulo bias.
  for (let i = 0; i < SIWE_NONCE_LENGTH; i++) nonce += ALPHABET[ctx.random.int(ALPHABET.length)];
  const expiresAt = now + SIWE_NONCE_TTL_MS;
  await ctx.db
    .deleteFrom("siwe_nonces")
    .where("expires_at", "<", now - SIWE_NONCE_TTL_MS)
    .execute();
  await ctx.db
    .insertInto("siwe_nonces")
    .values({
      nonce,
      app_id: params.app.id,
      address: params.address.toLowerCase(),
      chain_id: params.chainId,
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return {
    nonce,
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(expiresAt).toISOString(),
  };
}
