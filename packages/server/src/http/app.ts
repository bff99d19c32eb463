import { MAX_BODY_BYTES } from "@latchkey/protocol";
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from "fastify";
import type { ServiceContext } from "../context";
import { Metrics, registerMetrics } from "./metrics";
import { appApiKey } from "./plugins/appApiKey";
import { cors } from "./plugins/cors";
import { errorHandler } from "./plugins/errorHandler";
import { jsonBody } from "./plugins/jsonBody";
import { RefusalLog } from "./refusalLog";

export interface HttpOptions {
  logLevel?: string;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  trustProxy?: boolean;
}

/**
 * The Fastify instance with the cross-cutting plugins (JSON body, CORS, app API key, errors, metrics)
 * and no routes: the composition root registers the features on it.
 */
export function createHttpApp(ctx: ServiceContext, opts: HttpOptions = {}): FastifyInstance {
  const logLevel = opts.logLevel ?? "info";
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: opts.trustProxy ?? false,
    // Per-request lines only at debug: at info they would double the cost of a signature.
    logController: new LogController({ disableRequestLogging: logLevel !== "debug" && logLevel !== "trace" }),
    logger: {
      level: logLevel,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      // Request logs carry method, path and status only: never bodies, stamps, codes or bundles.
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: req.url.split("?")[0], ip: req.ip }),
      },
      redact: [
        "req.headers.authorization",
        "req.headers['x-stamp']",
        "req.headers['x-stamp-webauthn']",
        "req.headers['x-user-share']",
      ],
    },
  });
  ctx.mailer.setLogger(app.log);
  jsonBody(app);
  const refusals = new RefusalLog(() => app.log, ctx.now);
  cors(app, ctx, refusals);
  appApiKey(app, ctx, refusals);
  errorHandler(app);
  registerMetrics(app, new Metrics());
  return app;
}
