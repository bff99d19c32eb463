import { ErrorCode, isOriginAllowed } from "@latchkey/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { App } from "../../apps/appDirectory";
import { appFromJwt, looksLikeJwt } from "../../apps/appJwt";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import type { RefusalLog } from "../refusalLog";

declare module "fastify" {
  interface FastifyRequest {
    latchkeyApp?: App;
  }
}

/**
 * Signer API and the JSON-RPC endpoint (`/rpc/`): the app is named by its API key, or by a JWT from its
 * backend (apps/appJwt.ts); a browser caller's origin must be one the app allows.
 */
export function appApiKey(
  app: FastifyInstance,
  ctx: Pick<ServiceContext, "apps" | "caches" | "now">,
  refusals?: RefusalLog,
): void {
  app.addHook("preHandler", async (req) => {
    if (!req.url.startsWith("/signer/") && !req.url.startsWith("/rpc/")) return;
    const auth = req.headers.authorization;
    const match = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
    if (!match?.[1])
      throw apiError(ErrorCode.UNAUTHENTICATED, "Missing app API key (Authorization: Bearer <key or JWT>)");
    const token = match[1];
    const found = looksLikeJwt(token) ? await appFromJwt(ctx, token) : await ctx.apps.byApiKey(token);
    const origin = req.headers.origin;
    if (!found) {
      if (!looksLikeJwt(token)) refusals?.unknownKey(token, origin);
      throw apiError(ErrorCode.INVALID_API_KEY, "Unknown or revoked app API key");
    }
    if (origin && !isOriginAllowed(found.allowedOrigins, origin)) {
      refusals?.originNotAllowed(origin, found.id);
      throw apiError(ErrorCode.ORIGIN_NOT_ALLOWED, `Origin ${origin} is not allowed for this app`);
    }
    req.latchkeyApp = found;
  });
}

/** The app the request's API key named (set by the hook above for every /signer/ and /rpc/ route). */
export function appOf(req: FastifyRequest): App {
  if (!req.latchkeyApp) throw apiError(ErrorCode.UNAUTHENTICATED, "Missing app API key");
  return req.latchkeyApp;
}
