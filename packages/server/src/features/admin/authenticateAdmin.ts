import { ErrorCode, STAMP_HEADER_NAME } from "@latchkey/protocol";
import type { FastifyRequest } from "fastify";
import { openAdminStamp } from "../../auth/stamps/authenticateAdminStamp";
import { assertFreshTimestamp } from "../../auth/stamps/freshness";
import { assertBoundTo } from "../../auth/stamps/operationBinding";
import { consumeBody } from "../../auth/stamps/replayLedger";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { type AdminStamper, consoleSessionKey } from "./console/consoleSession";

/** Who stamped an admin API request, and the body they signed (parsed, not yet validated). */
export interface AdminRequestCaller {
  /** An app admin key, or an admin's console session (`consoleSessionId`), scoped to its app alike. */
  admin: AdminStamper;
  body: Record<string, unknown>;
}

/**
 * Who sent an admin API request, checked in the order of DESIGN §3.2 against the apps' admin keys (a
 * user's session key never passes, an admin key passes nowhere else):
 *  1. the stamp is `X-Stamp`, decodes canonically, and its signature covers the exact body bytes;
 *  2. its key is an admin key of some app, or a live console session of an app's admin (else 403
 *     ADMIN_KEY_REQUIRED: a user's session key, an unknown key; 401 SESSION_EXPIRED: a console session
 *     that expired or was signed out);
 *  3. the body is a JSON object addressed to that app's organisation (else 403 FORBIDDEN: another app);
 *  4. its `type` is this endpoint's (400 STAMP_WRONG_OPERATION otherwise);
 *  5. its `timestampMs` is within 5 minutes before and 1 minute after now (401 STAMP_EXPIRED / _IN_FUTURE);
 *  6. the body was never used before (401 STAMP_REPLAYED): reads and changes alike are single use.
 */
export async function authenticateAdmin(
  ctx: Pick<ServiceContext, "apps" | "db" | "now">,
  req: FastifyRequest,
  type: string,
): Promise<AdminRequestCaller> {
  const body = req.rawBody;
  if (body === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
  const headerValue = req.headers[STAMP_HEADER_NAME.toLowerCase()];
  if (typeof headerValue !== "string") {
    throw apiError(ErrorCode.INVALID_STAMP, "Admin requests are stamped by an app admin key (X-Stamp)");
  }
  // 1.–3.
  const { key: admin, record } = await openAdminStamp<AdminStamper>(
    ctx,
    body,
    headerValue,
    {
      code: ErrorCode.ADMIN_KEY_REQUIRED,
      message: "The admin API is stamped by an app admin key (signingPolicy.adminKeys) or a console session",
    },
    async (publicKey) => (await ctx.apps.adminKey(publicKey)) ?? consoleSessionKey(ctx, publicKey),
  );
  // 4.
  assertBoundTo(record, { kind: "operation", type });
  // 5.
  assertFreshTimestamp(record.timestampMs, ctx.now(), "admin requests");
  // 6.
  await consumeBody(ctx, body);
  return { admin, body: record };
}
