import { ErrorCode, SIWE_MAX_CLOCK_SKEW_MS, type SiweVerifyResponse } from "@latchkey/protocol";
import type { Hex } from "viem";
import { validateSiweMessage } from "viem/siwe";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { domainAllowed, uriAllowed } from "./allowedOrigins";
import { consumeNonce } from "./consumeNonce";
import { assertChainSupported } from "./issueNonce";
import { issueSessionToken } from "./issueSessionToken";
import { parseMessage } from "./parseMessage";
import { verifySignature } from "./verifySignature";

/**
 * Verifies a signed EIP-4361 message for `app` and answers a session token. The checks, in order (the
 * first that fails answers, with its stable code):
 * 1. the message follows the grammar (SIWE_INVALID_MESSAGE);
 * 2. its nonce is spent now, once and for all, and was this app's, unused and unexpired
 *    (SIWE_NONCE_UNKNOWN, SIWE_NONCE_USED, SIWE_NONCE_EXPIRED);
 * 3. its chain is one the service serves (SIWE_CHAIN_NOT_SUPPORTED), and its address and chain are the
 *    ones the nonce was issued for (SIWE_NONCE_MISMATCH);
 * 4. its `domain` and `URI` are on the app's allowed origins (SIWE_DOMAIN_NOT_ALLOWED, SIWE_URI_NOT_ALLOWED);
 * 5. it is valid now: before `Expiration Time`, from `Not Before`, and not issued in the future beyond
 *    SIWE_MAX_CLOCK_SKEW_MS (SIWE_MESSAGE_EXPIRED, SIWE_MESSAGE_NOT_YET_VALID), then viem's
 *    `validateSiweMessage` agrees;
 * 6. the signature is the address's: EOA, ERC-1271 or ERC-6492 (SIWE_INVALID_SIGNATURE, CHAIN_UNAVAILABLE).
 *
 * @example
 * const { token } = await verifySignIn(ctx, { app, message, signature, issuer: "https://auth.example.com" });
 */
export async function verifySignIn(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "chains" | "serviceKeys" | "audit">,
  params: { app: App; message: string; signature: Hex; issuer: string; ip?: string },
): Promise<SiweVerifyResponse> {
  const { app } = params;
  // 1.
  const message = parseMessage(params.message);
  // 2.
  const issued = await consumeNonce(ctx, { appId: app.id, nonce: message.nonce });
  // 3.
  assertChainSupported(ctx, message.chainId);
  if (issued.address !== message.address.toLowerCase() || issued.chainId !== message.chainId)
    throw apiError(
      ErrorCode.SIWE_NONCE_MISMATCH,
      "The message's address or chain is not the one its nonce was issued for",
    );
  // 4.
  const origin = `${message.scheme ? `${message.scheme}://` : ""}${message.domain}`;
  if (!domainAllowed(app.allowedOrigins, message))
    throw apiError(
      ErrorCode.SIWE_DOMAIN_NOT_ALLOWED,
      `The message's domain ${origin} is not one of the app's allowed origins`,
    );
  if (!uriAllowed(app.allowedOrigins, message.uri))
    throw apiError(
      ErrorCode.SIWE_URI_NOT_ALLOWED,
      "The message's URI is not on one of the app's allowed origins",
    );
  // 5.
  const now = ctx.now();
  if (message.expirationTime && now >= message.expirationTime.getTime())
    throw apiError(ErrorCode.SIWE_MESSAGE_EXPIRED, "The message has expired (Expiration Time)");
  if (message.notBefore && now < message.notBefore.getTime())
    throw apiError(ErrorCode.SIWE_MESSAGE_NOT_YET_VALID, "The message is not valid yet (Not Before)");
  if (message.issuedAt.getTime() > now + SIWE_MAX_CLOCK_SKEW_MS)
    throw apiError(ErrorCode.SIWE_MESSAGE_NOT_YET_VALID, "The message is issued in the future (Issued At)");
  if (!validateSiweMessage({ message, nonce: message.nonce, time: new Date(now) }))
    throw apiError(ErrorCode.SIWE_INVALID_MESSAGE, "The message is not a valid EIP-4361 message");
  // 6.
  await verifySignature(ctx, {
    address: message.address,
    chainId: message.chainId,
    message: params.message,
    signature: params.signature,
  });

  const { token, jti, expiresAt } = await issueSessionToken(ctx, {
    issuer: params.issuer,
    appId: app.id,
    address: message.address,
    chainId: message.chainId,
    ...(message.expirationTime ? { expirationTime: message.expirationTime } : {}),
  });
  await ctx.audit("siwe.signin", {
    appId: app.id,
    ...(params.ip ? { ip: params.ip } : {}),
    details: { address: message.address, chainId: message.chainId, jti },
  });
  return {
    token,
    address: message.address,
    chainId: message.chainId,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}
