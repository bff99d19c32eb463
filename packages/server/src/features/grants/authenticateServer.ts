import { decodeStamp, ErrorCode, STAMP_HEADER_NAME, StampFormatError } from "@latchkey/protocol";
import type { FastifyRequest } from "fastify";
import { assertFreshTimestamp } from "../../auth/stamps/freshness";
import { assertBoundTo } from "../../auth/stamps/operationBinding";
import { verifyP256Der } from "../../auth/stamps/p256Verify";
import { consumeBody } from "../../auth/stamps/replayLedger";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { parseJsonObject } from "../../http/parse";
import { type AppServerKey, serverKeyOf } from "./serverKeys";

/** Who stamped a backend API request, and the body they signed (parsed, not yet validated). */
export interface BackendCaller {
  serverKey: AppServerKey;
  body: Record<string, unknown>;
  /** The exact body received: what the stamp covers. */
  raw: string;
}

/**
 * Who sent a backend API request, checked in the order of DESIGN §3.2 against the apps' server keys (a
 * user's session key or an admin key never passes, a server key passes nowhere else):
 *  1. the stamp is `X-Stamp`, decodes canonically, and its signature covers the exact body bytes;
 *  2. its key is a server key of some app (else 403 SERVER_KEY_REQUIRED);
 *  3. the body is a JSON object naming that app in `appId` (else 403 FORBIDDEN: another app);
 *  4. its `type` is this endpoint's (400 STAMP_WRONG_OPERATION otherwise);
 *  5. its `timestampMs` is within 5 minutes before and 1 minute after now (401 STAMP_EXPIRED / _IN_FUTURE);
 *  6. the body was never used before (401 STAMP_REPLAYED): each request is single use, so a signature
 *     under a grant is never made, nor counted, twice for one request.
 */
export async function authenticateServer(
  ctx: Pick<ServiceContext, "apps" | "db" | "now">,
  req: FastifyRequest,
  type: string,
): Promise<BackendCaller> {
  const raw = req.rawBody;
  if (raw === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
  const header = req.headers[STAMP_HEADER_NAME.toLowerCase()];
  if (typeof header !== "string")
    throw apiError(ErrorCode.INVALID_STAMP, "Backend requests are stamped by an app server key (X-Stamp)");
  // 1.
  let stamp: ReturnType<typeof decodeStamp>;
  try {
    stamp = decodeStamp(header);
  } catch (e) {
    if (e instanceof StampFormatError && e.code === "STAMP_NOT_CANONICAL")
      throw apiError(ErrorCode.STAMP_NOT_CANONICAL, `The stamp is not canonical: ${e.message}`);
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp is malformed");
  }
  if (!(await verifyP256Der(raw, stamp.publicKey, stamp.signature)))
    throw apiError(ErrorCode.INVALID_STAMP, "The stamp's signature does not match the body");
  // 2.
  const serverKey = await serverKeyOf(ctx, stamp.publicKey);
  if (!serverKey)
    throw apiError(
      ErrorCode.SERVER_KEY_REQUIRED,
      "The backend API is stamped by an app server key (serverKeys)",
    );
  // 3.
  const body = parseJsonObject(raw, "stamped body");
  if (body.appId !== serverKey.appId)
    throw apiError(ErrorCode.FORBIDDEN, "The server key does not belong to this app");
  // 4.
  assertBoundTo(body, { kind: "operation", type });
  // 5.
  assertFreshTimestamp(body.timestampMs, ctx.now(), "backend requests");
  // 6.
  await consumeBody(ctx, raw);
  return { serverKey, body, raw };
}
