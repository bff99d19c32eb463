import { ErrorCode, WEBAUTHN_STAMP_HEADER_NAME } from "@latchkey/protocol";
import { adminConsoleApi } from "@latchkey/protocol/schemas";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../../context";
import { apiError } from "../../../errors";
import { parseOrThrow } from "../../../http/parse";
import { consoleOrigin } from "./consoleOrigin";
import { CONSOLE_CSP, consoleAssets } from "./consolePage";
import { enrolPasskey, readEnrolment } from "./enrol";
import { signInToConsole } from "./signIn";

const PAGE_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

/**
 * The admin console: `GET /admin` and every path under it answer the console's page (it routes in the
 * browser), `GET /admin/assets/*` its script and stylesheet, and the sign-in endpoints of the protocol's
 * `adminConsoleApi`: read an enrolment link, enrol a passkey with it, sign in with that passkey.
 */
export function consoleRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // The console is built (in a checkout) or read (installed) on its first request, not at start: most
  // services (and every test's) never serve it, and a checkout's build costs a second of CPU.
  const page = async (_req: FastifyRequest, reply: FastifyReply) => {
    const { html } = await consoleAssets();
    return reply
      .headers({ ...PAGE_HEADERS, "cache-control": "no-store" })
      .type("text/html; charset=utf-8")
      .send(html);
  };
  app.get("/admin", page);
  app.get("/admin/*", async (req: FastifyRequest<{ Params: { "*": string } }>, reply) => {
    // The API is POST only: a GET there is a wrong URL, not a console page.
    if (req.params["*"].startsWith("v1/")) throw apiError(ErrorCode.NOT_FOUND, "Not found");
    return page(req, reply);
  });
  app.get("/admin/assets/:name", async (req: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const { script, style } = await consoleAssets();
    const found = [script, style].find((a) => a.name === req.params.name);
    if (!found) throw apiError(ErrorCode.NOT_FOUND, "Not found");
    return reply
      .headers({ ...PAGE_HEADERS, "cache-control": "public, max-age=31536000, immutable" })
      .type(found.type)
      .send(found.body);
  });

  app.post(adminConsoleApi.enrolment.path, async (req) => {
    const body = parseOrThrow(adminConsoleApi.enrolment.request, req.body ?? {}, "request");
    return readEnrolment(ctx, { token: body.token, rpId: consoleOrigin(ctx, req).rpId });
  });
  app.post(adminConsoleApi.enrol.path, async (req) => {
    const request = parseOrThrow(adminConsoleApi.enrol.request, req.body ?? {}, "request");
    const { origin, rpId } = consoleOrigin(ctx, req);
    return enrolPasskey(ctx, { request, origin, rpId, ip: req.ip });
  });
  app.post(adminConsoleApi.sign_in.path, async (req) => {
    if (req.rawBody === undefined) throw apiError(ErrorCode.INVALID_REQUEST, "A JSON body is required");
    const header = req.headers[WEBAUTHN_STAMP_HEADER_NAME.toLowerCase()];
    return signInToConsole(ctx, {
      body: req.rawBody,
      headerValue: typeof header === "string" ? header : undefined,
      ip: req.ip,
    });
  });
}
