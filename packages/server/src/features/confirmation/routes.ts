import { ErrorCode, STAMP_HEADER_NAME } from "@latchkey/protocol";
import { CONFIRMATION_KEY_PATH, CONFIRMATION_KEY_TYPE } from "@latchkey/protocol/frame";
import type { FastifyRequest } from "fastify";
import { authenticateStamp } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import { defineFeature } from "../defineFeature";

const UNCOMPRESSED_P256 = /^04[0-9a-f]{128}$/;

/**
 * `POST /frames/v1/confirmation-key` (issue 46, keyManagement/confirmation): the auth frame registers the
 * public key of its confirmation key with the session that stamps the request. Only a page of the
 * service's own origin may (the browser's `Sec-Fetch-Site: same-origin`, which no script can set): a
 * host page's script cannot register a key of its own for a session, and cannot ask the frame to stamp
 * such a body either (the frame stamps it only for its own key). A later registration by the frame (a
 * reloaded frame makes a new key) replaces the earlier one.
 */
export const confirmationFeature = defineFeature({
  name: "confirmation",
  register(app, ctx) {
    app.post(CONFIRMATION_KEY_PATH, async (req: FastifyRequest) => {
      if (req.headers["sec-fetch-site"] !== "same-origin")
        throw apiError(
          ErrorCode.FORBIDDEN,
          "Only the service's own auth frame may register a confirmation key",
        );
      const raw = req.rawBody;
      if (raw === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
      const stamp = req.headers[STAMP_HEADER_NAME.toLowerCase()];
      if (typeof stamp !== "string") throw apiError(ErrorCode.INVALID_STAMP, "Missing X-Stamp header");
      const caller = await authenticateStamp(ctx, {
        body: raw,
        headerName: STAMP_HEADER_NAME,
        headerValue: stamp,
        operation: { kind: "operation", type: CONFIRMATION_KEY_TYPE },
      });
      const publicKey = caller.body.publicKey;
      if (typeof publicKey !== "string" || !UNCOMPRESSED_P256.test(publicKey))
        throw apiError(
          ErrorCode.INVALID_PUBLIC_KEY,
          "publicKey must be an uncompressed P-256 public key: 130 hex digits starting 04",
        );
      if (!caller.apiKeyId)
        throw apiError(ErrorCode.FORBIDDEN, "Only a session registers a confirmation key");
      await ctx.db
        .updateTable("api_keys")
        .set({ confirmation_key: publicKey })
        .where("id", "=", caller.apiKeyId)
        .execute();
      return {};
    });
  },
});
