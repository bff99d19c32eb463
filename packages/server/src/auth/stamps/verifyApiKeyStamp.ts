import { decodeStamp, ErrorCode, StampFormatError } from "@latchkey/protocol";
import type { ServiceContext, StampKeyRow } from "../../context";
import { apiError } from "../../errors";
import { verifyP256Der } from "./p256Verify";
import { stampKeys } from "./stampKeyCache";

/**
 * An API-key stamp (`X-Stamp`, DESIGN §3.2), steps 1–5 of the ordered check; the caller goes on with
 * the organisation, the operation, the timestamp window and the ledger (authenticateStamp.ts).
 */
export async function verifyApiKeyStamp(
  ctx: Pick<ServiceContext, "db" | "now" | "caches">,
  { body, headerValue }: { body: string; headerValue: string },
): Promise<StampKeyRow> {
  // 1. The header decodes, and is written the one canonical way (F1: no padding, case or spacing
  // aliases). Either s is accepted (WebCrypto and @turnkey/api-key-stamper do not normalise it): a
  // single-use body is refused the second time by the ledger, which keys on the body, not the stamp.
  let stamp: ReturnType<typeof decodeStamp>;
  try {
    stamp = decodeStamp(headerValue);
  } catch (e) {
    if (e instanceof StampFormatError && e.code === "STAMP_NOT_CANONICAL") {
      throw apiError(ErrorCode.STAMP_NOT_CANONICAL, `The stamp is not canonical: ${e.message}`);
    }
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp is malformed");
  }
  // 2. The key is known and unrevoked.
  const keys = await stampKeys(ctx, stamp.publicKey);
  if (keys.length === 0) throw apiError(ErrorCode.INVALID_STAMP, "The stamp's key is unknown or revoked");
  // 3. The signature covers the exact bytes received, never a re-serialisation.
  if (!(await verifyP256Der(body, stamp.publicKey, stamp.signature))) {
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp's signature does not match the body");
  }
  // 4. The key has not expired.
  const live = keys.find((k) => k.expires_at === null || k.expires_at > ctx.now());
  if (!live) throw apiError(ErrorCode.SESSION_EXPIRED, "The session has expired");
  // 5. An app admin has not disabled the user (admin API).
  if (live.disabled_at !== null) throw apiError(ErrorCode.USER_DISABLED, "This user is disabled");
  return live;
}
