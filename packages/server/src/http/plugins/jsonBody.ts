import { ErrorCode } from "@latchkey/protocol";
import type { FastifyInstance } from "fastify";
import { apiError } from "../../errors";
import { assertJsonDepth } from "../jsonDepth";
import { assertNoNul } from "../nul";

declare module "fastify" {
  interface FastifyRequest {
    /** The exact body text received: what a stamp in a header signs. */
    rawBody?: string;
  }
}

/**
 * JSON bodies only, kept as received (`req.rawBody`) beside the parsed value. A NUL anywhere in the body
 * is refused here, before any handler: no database stores one, and PostgreSQL would fail on it. So is
 * nesting deeper than `MAX_JSON_DEPTH`, before it is parsed: every endpoint's handler may recurse.
 */
export function jsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = body as string;
    req.rawBody = text;
    if (text.length === 0) return done(null, {});
    let parsed: unknown;
    try {
      assertJsonDepth(text, "request body");
    } catch (e) {
      return done(e as Error, undefined);
    }
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(apiError(ErrorCode.INVALID_JSON, "The request body is not valid JSON"), undefined);
    }
    try {
      assertNoNul(parsed);
    } catch (e) {
      return done(e as Error, undefined);
    }
    done(null, parsed);
  });
  app.addContentTypeParser("*", (_req, _payload, done) => {
    done(apiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request body as application/json"), undefined);
  });
}
