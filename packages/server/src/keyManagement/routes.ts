import {
  ErrorCode,
  type QueryName,
  queryTypes,
  STAMP_HEADER_NAME,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "@latchkey/protocol";
import { USER_SHARE_HEADER_NAME } from "@latchkey/protocol/custody";
import { CONFIRMATION_HEADER_NAME } from "@latchkey/protocol/frame";
import { activityTypes, querySchemas } from "@latchkey/protocol/schemas";
import type { FastifyRequest } from "fastify";
import { authenticateAdminStamp } from "../auth/stamps/authenticateAdminStamp";
import { authenticateStamp } from "../auth/stamps/authenticateStamp";
import { apiError } from "../errors";
import { defineFeature } from "../features/defineFeature";
import { parseOrThrow } from "../http/parse";
import { queries } from "./queries";
import { submitActivity } from "./submitActivity";
import { ADMIN_ACTIVITY_TYPES, ADMIN_SUBMIT_PATHS, submitAdminActivity } from "./submitAdminActivity";

function stampHeader(req: FastifyRequest): { headerName: string; headerValue: string } {
  const apiStamp = req.headers[STAMP_HEADER_NAME.toLowerCase()];
  if (typeof apiStamp === "string") return { headerName: STAMP_HEADER_NAME, headerValue: apiStamp };
  const webauthn = req.headers[WEBAUTHN_STAMP_HEADER_NAME.toLowerCase()];
  if (typeof webauthn === "string") return { headerName: WEBAUTHN_STAMP_HEADER_NAME, headerValue: webauthn };
  throw apiError(ErrorCode.INVALID_STAMP, "Missing X-Stamp header");
}

/** Split custody: the request's sealed user share (`X-User-Share`), if it carries one. */
function userShareOf(req: FastifyRequest): string | undefined {
  const value = req.headers[USER_SHARE_HEADER_NAME.toLowerCase()];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 4096) {
    throw apiError(ErrorCode.USER_SHARE_INVALID, `${USER_SHARE_HEADER_NAME} must be one sealed share`);
  }
  return value;
}

/** Enforced confirmations: the auth frame's confirmation of the request (`X-Confirmation`), if it carries one. */
function confirmationOf(req: FastifyRequest): string | undefined {
  const value = req.headers[CONFIRMATION_HEADER_NAME.toLowerCase()];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 512) {
    throw apiError(ErrorCode.CONFIRMATION_INVALID, `${CONFIRMATION_HEADER_NAME} must be one confirmation`);
  }
  return value;
}

const ADMIN_TYPES = new Set<string>(ADMIN_ACTIVITY_TYPES);
// A user's session may name any activity but the admin ones in a body; those are an app admin key's.
const USER_ACTIVITY_TYPES = Object.keys(activityTypes).filter((type) => !ADMIN_TYPES.has(type));

/**
 * The key-management API (DESIGN §3.3): the stamp in the header alone authenticates. A passkey may stamp
 * these requests; addressed to the app's root organisation it may only create a read-write session
 * (passkey login in one prompt). approve_activity and reject_activity are stamped by an app admin key
 * (signingPolicy.adminKeys) and checked against those alone (authenticateAdminStamp.ts).
 */
export const keyManagementFeature = defineFeature({
  name: "keyManagement",
  register(app, ctx) {
    app.post("/public/v1/query/:name", async (req: FastifyRequest<{ Params: { name: string } }>) => {
      const raw = req.rawBody;
      if (raw === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
      const name = req.params.name;
      if (!Object.hasOwn(queries, name))
        throw apiError(ErrorCode.NOT_FOUND, `Unknown query endpoint ${name}`);
      const q = name as QueryName;
      const caller = await authenticateStamp(ctx, {
        body: raw,
        ...stampHeader(req),
        operation: { kind: "query", type: queryTypes[q] },
        passkey: { allowRootOrg: false },
      });
      const body = parseOrThrow(querySchemas[q], caller.body, "request");
      const handler = queries[q] as (typeof queries)["whoami"];
      return handler.run(ctx, { caller, body: body as Parameters<typeof handler.run>[1]["body"] });
    });

    app.post("/public/v1/submit/:name", async (req: FastifyRequest<{ Params: { name: string } }>) => {
      const raw = req.rawBody;
      if (raw === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
      const url = `/public/v1/submit/${req.params.name}` as const;
      if (ADMIN_SUBMIT_PATHS.has(req.params.name)) {
        const admin = await authenticateAdminStamp(ctx, {
          body: raw,
          ...stampHeader(req),
          types: ADMIN_ACTIVITY_TYPES,
        });
        const { activity } = await submitAdminActivity(ctx, { url }, { rawBody: raw, admin });
        return { activity };
      }
      const caller = await authenticateStamp(ctx, {
        body: raw,
        ...stampHeader(req),
        // The path's own activity type is checked by submitActivity (UNSUPPORTED_ACTIVITY otherwise).
        operation: { kind: "submit", types: USER_ACTIVITY_TYPES },
        passkey: { allowRootOrg: req.params.name === "create_read_write_session" },
      });
      const { activity } = await submitActivity(
        ctx,
        { url },
        { rawBody: raw, caller, userShare: userShareOf(req), confirmation: confirmationOf(req) },
      );
      return { activity };
    });
  },
});
