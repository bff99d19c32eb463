import { decodeStamp, ErrorCode, STAMP_HEADER_NAME, StampFormatError } from "@latchkey/protocol";
import type { AppAdminKey } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { parseJsonObject } from "../../http/parse";
import { assertFreshTimestamp } from "./freshness";
import { assertBoundTo } from "./operationBinding";
import { verifyP256Der } from "./p256Verify";

/** An app admin (a key of the app's `signingPolicy.adminKeys`) who stamped an approve or reject. */
export interface AdminCaller {
  key: AppAdminKey;
  /** The parsed body the stamp covers. */
  body: Record<string, unknown>;
}

/**
 * Who sent an admin's stamped request (approve_activity / reject_activity), in DESIGN §3.2's order like
 * authenticateStamp.ts, but against the apps' admin keys instead of users' sessions, and only for the
 * admin activity types given: a user's session can never approve, and an admin key can do nothing else.
 *  1. the header is `X-Stamp` (an admin key is an API key; passkeys are not admin keys);
 *  2. the stamp decodes canonically (either s) and its signature covers the exact body bytes;
 *  3. its key is an admin key of some app's signing policy (else 403: a valid key without the right);
 *  4. the body is a JSON object addressed to that app's organisation;
 *  5. the body names one of the admin operations (operationBinding.ts);
 *  6. its `timestampMs` is within 5 minutes before and 1 minute after now.
 * Submits are idempotent by the body's hash, as every activity is (submitAdminActivity.ts): a stamp
 * with the mirrored signature (r, n - s) answers the decision already recorded and decides nothing.
 */
export async function authenticateAdminStamp(
  ctx: Pick<ServiceContext, "apps" | "now">,
  params: { body: string; headerName: string; headerValue: string; types: readonly string[] },
): Promise<AdminCaller> {
  const { body, headerName, headerValue } = params;
  // 1.
  if (headerName.toLowerCase() !== STAMP_HEADER_NAME.toLowerCase()) {
    throw apiError(ErrorCode.INVALID_STAMP, "Approvals are stamped by an app admin key (X-Stamp)");
  }
  // 2.–4.
  const { key, record } = await openAdminStamp(ctx, body, headerValue, {
    code: ErrorCode.FORBIDDEN,
    message: "Only an app admin key (signingPolicy.adminKeys) may approve or reject",
  });
  // 5.
  assertBoundTo(record, { kind: "submit", types: params.types });
  // 6.
  assertFreshTimestamp(record.timestampMs, ctx.now(), "this request");
  return { key, body: record };
}

/**
 * The part every admin stamp shares (approvals here, the admin API in features/admin): the stamp decodes
 * canonically (either s) and its signature covers the exact body bytes; its key is an admin key of some
 * app (else `unknownKey`: a valid key without the right); the body is a JSON object addressed to that
 * app's organisation (else 403).
 */
export async function openAdminStamp<K extends AppAdminKey = AppAdminKey>(
  ctx: Pick<ServiceContext, "apps">,
  body: string,
  headerValue: string,
  unknownKey: { code: ErrorCode; message: string },
  /** Who a verified key is, when not only the apps' admin keys may stamp (the admin API's console sessions). */
  resolveKey: (publicKey: string) => Promise<K | null> = (k) => ctx.apps.adminKey(k) as Promise<K | null>,
): Promise<{ key: K; record: Record<string, unknown> }> {
  let stamp: ReturnType<typeof decodeStamp>;
  try {
    stamp = decodeStamp(headerValue);
  } catch (e) {
    if (e instanceof StampFormatError && e.code === "STAMP_NOT_CANONICAL") {
      throw apiError(ErrorCode.STAMP_NOT_CANONICAL, `The stamp is not canonical: ${e.message}`);
    }
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp is malformed");
  }
  if (!(await verifyP256Der(body, stamp.publicKey, stamp.signature))) {
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp's signature does not match the body");
  }
  const key = await resolveKey(stamp.publicKey);
  if (!key) throw apiError(unknownKey.code, unknownKey.message);
  const record = parseJsonObject(body, "stamped body");
  if (record.organizationId !== key.orgId) {
    throw apiError(ErrorCode.FORBIDDEN, "The admin key does not belong to this organization");
  }
  return { key, record };
}
