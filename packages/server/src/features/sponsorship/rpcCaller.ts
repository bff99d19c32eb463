import {
  ErrorCode,
  RpcErrorCode,
  SponsorshipErrorCode,
  STAMP_HEADER_NAME,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import { verifyApiKeyStamp } from "../../auth/stamps/verifyApiKeyStamp";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { rpcError } from "./jsonRpc";
import type { PolicyDailyLimits } from "./spending";

/** The user a `/rpc/v1` request proves it comes from: the one whose session key stamped its body. */
export interface RpcCaller {
  userId: string;
}

/**
 * Who sends this `/rpc/v1` request: the app's key says which app; an `X-Stamp` header, the user's
 * session key over the exact body bytes, says which of its users. The stamp is checked by the signer
 * API's verifier (canonical encoding, a known unrevoked key, the signature over the raw body, not
 * expired: verifyApiKeyStamp.ts), and its key must belong to a user of the app whose key called. A stamp
 * that fails answers as on the signer API (401 `INVALID_STAMP`, `SESSION_EXPIRED`, 403 for another app's
 * user). No stamp: `undefined`, a request that proves no user.
 *
 * The body is not single use: a request sent again asks for the same operations again, which count no
 * new operation and reserve no more than their dearest request (spending.ts); and it passes only while
 * the session key lives.
 */
export async function rpcCallerOf(
  ctx: Pick<ServiceContext, "db" | "now" | "caches">,
  params: { app: App; body: string; headers: Record<string, string | string[] | undefined> },
): Promise<RpcCaller | undefined> {
  const { headers } = params;
  if (headers[WEBAUTHN_STAMP_HEADER_NAME.toLowerCase()] !== undefined)
    throw apiError(
      ErrorCode.INVALID_STAMP,
      "Passkey stamps are not accepted on /rpc/v1: stamp with the session key",
    );
  const header = headers[STAMP_HEADER_NAME.toLowerCase()];
  if (header === undefined) return undefined;
  if (typeof header !== "string") throw apiError(ErrorCode.INVALID_STAMP, "Send one X-Stamp header");
  const key = await verifyApiKeyStamp(ctx, { body: params.body, headerValue: header });
  if (key.app_id !== params.app.id)
    throw apiError(ErrorCode.FORBIDDEN, "This session belongs to another app");
  return { userId: key.user_id };
}

/** Whether any of the policy's daily limits counts per user. */
export function hasPerUserLimits(daily: PolicyDailyLimits): boolean {
  return daily.limits.some((l) => l.scope === "user" && l.max !== undefined);
}

/**
 * May this request's operation be charged to `userId` (the sender's owner, or the Solana signer chosen)?
 * A stamped request only for its own user (else `STAMP_USER_MISMATCH`); a request without a stamp only
 * under a policy without per-user limits (else `USER_STAMP_REQUIRED`): a publishable key alone must not
 * use up a chosen user's daily allowance. App-wide limits hold either way.
 */
export function assertChargeable(
  daily: PolicyDailyLimits,
  caller: RpcCaller | undefined,
  userId: string,
): void {
  if (caller) {
    if (caller.userId !== userId)
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.STAMP_USER_MISMATCH,
        "The request is stamped by another user's session than the one whose operation it is",
      );
    return;
  }
  if (hasPerUserLimits(daily))
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.USER_STAMP_REQUIRED,
      `Policy ${daily.policyId} has per-user daily limits: stamp the request with the user's session key (X-Stamp over the body)`,
    );
}
