import { ErrorCode, isOriginAllowed, SDK_VERSION_HEADER } from "@latchkey/protocol";
import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../../context";
import type { RefusalLog } from "../refusalLog";

const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "x-stamp",
  "x-stamp-webauthn",
  // Split custody: the user's share sealed for the request (docs/split-custody.md §2).
  "x-user-share",
  // Enforced confirmations: the auth frame's confirmation of the request (issue 46).
  "x-confirmation",
  SDK_VERSION_HEADER.toLowerCase(),
];

export const isApiPath = (url: string) =>
  url.startsWith("/signer/") || url.startsWith("/public/") || url.startsWith("/rpc/");

/** CORS for the APIs: an origin is answered only if an app allows it; never reflected blindly. */
export function cors(app: FastifyInstance, ctx: Pick<ServiceContext, "apps">, refusals?: RefusalLog): void {
  app.addHook("onRequest", async (req, reply) => {
    const origin = req.headers.origin;
    if (!origin || !isApiPath(req.url)) return;
    const allowed = await ctx.apps.allOrigins();
    if (!isOriginAllowed(allowed, origin)) {
      if (req.method === "OPTIONS") {
        refusals?.originNotAllowed(origin);
        return reply
          .code(403)
          .send({ error: "This origin is not allowed", code: ErrorCode.ORIGIN_NOT_ALLOWED });
      }
      return;
    }
    reply.header("access-control-allow-origin", origin);
    reply.header("vary", "Origin");
    if (req.method === "OPTIONS") {
      reply.header("access-control-allow-methods", "POST, OPTIONS");
      reply.header("access-control-allow-headers", ALLOWED_HEADERS.join(", "));
      reply.header("access-control-max-age", "600");
      return reply.code(204).send();
    }
  });
}
