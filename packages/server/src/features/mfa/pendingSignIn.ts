import { ErrorCode } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import { apiError } from "../../errors";
import type { UserRecord } from "../../users/userStore";
import type { FactorContext } from "./factorStore";

/** How long an MFA_REQUIRED payload may be redeemed. */
export const MFA_PAYLOAD_TTL_MS = 5 * 60 * 1000;

/** What the service needs to finish a sign-in once the second factor is given. */
export interface PendingSignIn {
  cid: string;
  uid: string;
  app: string;
  tpk: string;
  exp?: number;
  until: number;
}

// Sealed with the keyring like every secret at rest, bound to this purpose: only this service opens it.
const SEAL_CONTEXT = "mfa_payload";

/** 400 INVALID_MFA_PAYLOAD: the pending sign-in cannot be completed (start again). */
export const invalidPendingSignIn = (message = "The sign-in to complete is invalid; start again") =>
  apiError(ErrorCode.INVALID_MFA_PAYLOAD, message);

/**
 * Seals what the service needs to finish the sign-in, for itself only, single use and short-lived: the
 * `encryptedPayload` of an MFA_REQUIRED answer.
 */
export async function createPendingSignIn(
  ctx: FactorContext,
  params: { app: App; user: UserRecord; targetPublicKey: string; expirationSeconds?: number | undefined },
): Promise<string> {
  const now = ctx.now();
  const cid = ctx.random.uuid();
  await ctx.db
    .insertInto("mfa_challenges")
    .values({
      id: cid,
      user_id: params.user.id,
      expires_at: now + MFA_PAYLOAD_TTL_MS,
      used_at: null,
      created_at: now,
    })
    .execute();
  const pending: PendingSignIn = {
    cid,
    uid: params.user.id,
    app: params.app.id,
    tpk: params.targetPublicKey,
    until: now + MFA_PAYLOAD_TTL_MS,
    ...(params.expirationSeconds ? { exp: params.expirationSeconds } : {}),
  };
  return ctx.keyring.seal(new TextEncoder().encode(JSON.stringify(pending)), SEAL_CONTEXT);
}

/** Opens the `encryptedPayload` of an MFA_REQUIRED answer: 400 INVALID_MFA_PAYLOAD when it is not one. */
export async function openPendingSignIn(ctx: FactorContext, payload: string): Promise<PendingSignIn> {
  try {
    return JSON.parse((await ctx.keyring.open(payload, SEAL_CONTEXT)).toString("utf8")) as PendingSignIn;
  } catch {
    throw invalidPendingSignIn();
  }
}
