import { ErrorCode, STAMP_HEADER_NAME, WEBAUTHN_STAMP_HEADER_NAME } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { parseJsonObject } from "../../http/parse";
import type { UserRecord } from "../../users/userStore";
import { assertFreshTimestamp } from "./freshness";
import { assertBoundTo, needsFreshTimestamp, type OperationBinding } from "./operationBinding";
import { assertBodyUnused, consumeBody } from "./replayLedger";
import { verifyApiKeyStamp } from "./verifyApiKeyStamp";
import { verifyPasskeyStamp } from "./verifyPasskeyStamp";

export interface StampedCaller {
  user: UserRecord;
  /** The session or API key that stamped; absent for a passkey stamp. */
  apiKeyId?: string;
  /** Set for a passkey stamp. */
  passkey?: { authenticatorId: string; credentialId: string };
  /** True when a passkey stamp addressed the app's root organisation (passkey login). */
  viaRootOrg?: boolean;
  /** The parsed body the stamp covers. */
  body: Record<string, unknown>;
}

export interface AuthenticateStampParams {
  /** The exact body string received: what the stamp signs. */
  body: string;
  headerName: string;
  headerValue: string;
  /** What the body must say it is for (F2). */
  operation: OperationBinding;
  /** Passkey stamps are accepted; `allowRootOrg` lets one address the app's root organisation (login). */
  passkey?: { allowRootOrg: boolean };
}

/**
 * Who sent this stamped request, checked in DESIGN §3.2's order; each step below is numbered and a
 * request that fails one goes no further:
 *  1. the stamp header is one we know (`X-Stamp`, or `X-Stamp-WebAuthn` where passkeys are accepted);
 *  2. the stamp verifies over the exact body bytes — API key: canonical encoding, known unrevoked key,
 *     signature, not expired (verifyApiKeyStamp.ts); passkey: a WebAuthn assertion whose challenge is
 *     the body's hash (verifyPasskeyStamp.ts);
 *  3. the body is a JSON object addressed to the key's organisation (or, for a passkey login, the
 *     app's root organisation);
 *  4. the body names the operation it is presented for (operationBinding.ts);
 *  5. a body that changes something, or any passkey-stamped body, carries a `timestampMs` within
 *     5 minutes before and 1 minute after now;
 *  6. single-use bodies (signer operations such as MFA changes, passkey-stamped queries) are recorded
 *     in the replay ledger by the hash of the body, and refused the second time. Submits stay
 *     idempotent instead: the same body answers the activity it created (keyManagement/submitActivity.ts).
 */
export async function authenticateStamp(
  ctx: Pick<ServiceContext, "db" | "now" | "caches" | "apps">,
  params: AuthenticateStampParams,
): Promise<StampedCaller> {
  const { body, headerName, headerValue, operation } = params;
  const header = headerName.toLowerCase();
  // 1.
  if (header === WEBAUTHN_STAMP_HEADER_NAME.toLowerCase()) {
    if (!params.passkey) {
      throw apiError(ErrorCode.INVALID_STAMP, "Passkey stamps are not accepted on this endpoint");
    }
    const singleUse = operation.kind !== "submit";
    // 6, early: a replayed query answers before the costly assertion check.
    if (singleUse) await assertBodyUnused(ctx, body);
    // 2.
    const pk = await verifyPasskeyStamp(ctx, { body, headerValue });
    // 3.
    const record = parseJsonObject(body, "stamped body");
    const viaRootOrg = record.organizationId === pk.app.orgId;
    if (record.organizationId !== pk.user.orgId && !(viaRootOrg && params.passkey.allowRootOrg)) {
      throw apiError(ErrorCode.FORBIDDEN, "The passkey does not belong to this organization");
    }
    // 4.
    assertBoundTo(record, operation);
    // 5.
    assertFreshTimestamp(record.timestampMs, ctx.now(), "passkey-stamped requests");
    // 6.
    if (singleUse) await consumeBody(ctx, body);
    await pk.commitCounter();
    return {
      user: pk.user,
      passkey: { authenticatorId: pk.authenticatorId, credentialId: pk.credentialId },
      viaRootOrg,
      body: record,
    };
  }
  if (header !== STAMP_HEADER_NAME.toLowerCase()) {
    throw apiError(ErrorCode.INVALID_STAMP, `Unknown stamp header ${headerName}`);
  }
  // 2.
  const key = await verifyApiKeyStamp(ctx, { body, headerValue });
  // 3.
  const record = parseJsonObject(body, "stamped body");
  if (record.organizationId !== key.org_id) {
    throw apiError(ErrorCode.FORBIDDEN, "The stamp's key does not belong to this organization");
  }
  // 4.
  assertBoundTo(record, operation);
  // 5.
  if (needsFreshTimestamp(operation)) assertFreshTimestamp(record.timestampMs, ctx.now(), "this request");
  // 6.
  if (operation.kind === "operation") await consumeBody(ctx, body);
  return {
    user: { id: key.user_id, orgId: key.org_id, appId: key.app_id, email: key.email },
    apiKeyId: key.id,
    body: record,
  };
}
