import { ErrorCode, MAX_BODY_BYTES } from "@latchkey/protocol";
import type { FastifyInstance } from "fastify";
import { ApiError, apiError } from "../../errors";

const isPublicApi = (url: string) => url.startsWith("/public/");

/**
 * Every error becomes `{error, code, data?}` (signer API) or `{code, message, details}` (key-management
 * API) with the code's status. Anything unexpected is logged and answered 500 INTERNAL, without details.
 */
export function errorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      e = apiError(ErrorCode.BODY_TOO_LARGE, `The request body is larger than ${MAX_BODY_BYTES} bytes`);
    } else if (err.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || err.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
      e = apiError(ErrorCode.INVALID_JSON, "The request body is not valid JSON");
    } else if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      e = apiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request body as application/json");
    } else if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
      e = new ApiError(ErrorCode.INVALID_REQUEST, err.message, {
        status: err.statusCode as 400,
      });
    } else {
      req.log.error({ err }, "unhandled error");
      e = apiError(ErrorCode.INTERNAL, "Internal error");
    }
    if (e.headers) reply.headers(e.headers);
    if (isPublicApi(req.url))
      return reply.code(e.status).send({ code: e.code, message: e.message, details: e.data ? [e.data] : [] });
    return reply.code(e.status).send({ error: e.message, code: e.code, ...(e.data ? { data: e.data } : {}) });
  });

  app.setNotFoundHandler((req, reply) => {
    const msg = `No route ${req.method} ${req.url.split("?")[0]}`;
    if (isPublicApi(req.url))
      return reply.code(404).send({ code: ErrorCode.NOT_FOUND, message: msg, details: [] });
    return reply.code(404).send({ error: msg, code: ErrorCode.NOT_FOUND });
  });
}
