import {
  authRequestSchema,
  ErrorCode,
  emailSignupRequestSchema,
  listAuthMethodsSchema,
  lookupRequestSchema,
  MAX_BODY_BYTES,
  mfaDeleteSchema,
  mfaRequestSchema,
  mfaValidateSchema,
  mfaVerifySchema,
  otpRequestSchema,
  passkeySignupRequestSchema,
  prepareOauthRequestSchema,
  SDK_VERSION_HEADER,
  STAMP_HEADER_NAME,
  stampedRequestBodySchema,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "@latchkey/protocol";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import { ApiError, unauthorized } from "../errors";
import type { ServiceContext } from "../service";
import { parseOrThrow, runQuery, submitActivity } from "../services/activities";
import type { App } from "../services/apps";
import { listAuthMethods } from "../services/auth-methods";
import { authWithEmail, signupWithEmail, verifyEmailOtp } from "../services/email-auth";
import {
  checkFactorCode,
  deleteFactors,
  listFactors,
  requestTotp,
  validateMultiFactors,
} from "../services/mfa";
import { handleOauthCallback, messagePage, popupPage, prepareOauth } from "../services/oauth";
import { signupWithPasskey } from "../services/passkey-auth";
import { consumeStamp } from "../services/passkeys";
import { hit } from "../services/ratelimit";
import { authenticateStamp } from "../services/stamps";
import { findUserByEmail, userAddresses } from "../services/users";
import { registerFrames } from "./frames";
import { mailboxPage } from "./mailbox-page";
import { Metrics, registerMetrics } from "./metrics";

declare module "fastify" {
  interface FastifyRequest {
    rawBody?: string;
    latchkeyApp?: App;
  }
}

const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "x-stamp",
  "x-stamp-webauthn",
  SDK_VERSION_HEADER.toLowerCase(),
];

export interface HttpOptions {
  logLevel?: string;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  trustProxy?: boolean;
}

export async function buildHttp(ctx: ServiceContext, opts: HttpOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: opts.trustProxy ?? false,
    // Per-request lines only at debug: at info they would double the cost of a signature.
    logController: new LogController({
      disableRequestLogging: (opts.logLevel ?? "info") !== "debug" && (opts.logLevel ?? "info") !== "trace",
    }),
    logger: {
      level: opts.logLevel ?? "info",
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      // Request logs carry method, path and status only: never bodies, stamps, codes or bundles.
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: req.url.split("?")[0], ip: req.ip }),
      },
      redact: ["req.headers.authorization", "req.headers['x-stamp']", "req.headers['x-stamp-webauthn']"],
    },
  });
  ctx.mailer.setLogger(app.log);
  const isPublicApi = (url: string) => url.startsWith("/public/");

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = body as string;
    req.rawBody = text;
    if (text.length === 0) return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, ErrorCode.INVALID_JSON, "The request body is not valid JSON"), undefined);
    }
  });
  app.addContentTypeParser("*", (_req, _payload, done) => {
    done(
      new ApiError(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request body as application/json"),
      undefined,
    );
  });

  // CORS: an origin is answered only if an app allows it; never reflected blindly.
  app.addHook("onRequest", async (req, reply) => {
    const origin = req.headers.origin;
    if (!origin) return;
    if (!req.url.startsWith("/signer/") && !isPublicApi(req.url)) return;
    const allowed = await ctx.apps.allOrigins();
    if (!allowed.has(origin)) {
      if (req.method === "OPTIONS") {
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

  // Signer API: the app is named by its API key; a browser caller's origin must be one the app allows.
  app.addHook("preHandler", async (req) => {
    if (!req.url.startsWith("/signer/")) return;
    const auth = req.headers.authorization;
    const match = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
    if (!match?.[1]) throw unauthorized("Missing app API key (Authorization: Bearer <key>)");
    const found = await ctx.apps.byApiKey(match[1]);
    if (!found) throw unauthorized("Unknown or revoked app API key", ErrorCode.INVALID_API_KEY);
    const origin = req.headers.origin;
    if (origin && !found.allowedOrigins.includes(origin)) {
      throw new ApiError(403, ErrorCode.ORIGIN_NOT_ALLOWED, `Origin ${origin} is not allowed for this app`);
    }
    req.latchkeyApp = found;
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      e = new ApiError(
        413,
        ErrorCode.BODY_TOO_LARGE,
        `The request body is larger than ${MAX_BODY_BYTES} bytes`,
      );
    } else if (err.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || err.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
      e = new ApiError(400, ErrorCode.INVALID_JSON, "The request body is not valid JSON");
    } else if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      e = new ApiError(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request body as application/json");
    } else if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
      e = new ApiError(err.statusCode, ErrorCode.INVALID_REQUEST, err.message);
    } else {
      req.log.error({ err }, "unhandled error");
      e = new ApiError(500, ErrorCode.INTERNAL, "Internal error");
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

  registerMetrics(app, new Metrics());

  app.get("/healthz", async () => {
    await ctx.db.selectFrom("apps").select("id").limit(1).execute();
    return { status: "ok", database: ctx.dbKind };
  });

  const appOf = (req: FastifyRequest): App => req.latchkeyApp as App;
  const body = (req: FastifyRequest): unknown => req.body ?? {};

  // rootOrgId is an addition to the reference shape: the organisation a passkey login addresses.
  app.post("/signer/v1/signer-config", async (req) => ({
    email: { mode: appOf(req).emailMode },
    rootOrgId: appOf(req).orgId,
  }));

  /** A fixed-window limit per client IP (429 with Retry-After when over). */
  const perIp = (kind: string, ip: string, limit: number, message: string) =>
    hit(ctx.db, `${kind}:${ip}`, limit, ctx.limits.windowSeconds, ctx.now(), message);

  app.post("/signer/v1/lookup", async (req) => {
    const { email } = parseOrThrow(lookupRequestSchema, body(req), "request");
    await perIp(
      "lookup-ip",
      req.ip,
      ctx.limits.lookupsPerIp,
      "Too many lookups from this network. Try again later.",
    );
    const user = await findUserByEmail(ctx.db, appOf(req).id, email);
    return { orgId: user?.orgId ?? null };
  });

  const throttleSignup = (ip: string) =>
    perIp(
      "signup-ip",
      ip,
      ctx.limits.signupsPerIp,
      "Too many new accounts from this network. Try again later.",
    );

  app.post("/signer/v1/signup", async (req) => {
    const b = body(req) as Record<string, unknown>;
    if (b && typeof b === "object" && "passkey" in b && b.passkey !== undefined) {
      const parsed = parseOrThrow(passkeySignupRequestSchema, b, "request");
      await throttleSignup(req.ip);
      return signupWithPasskey(ctx, appOf(req), parsed, req.ip);
    }
    const parsed = parseOrThrow(emailSignupRequestSchema, b, "request");
    await throttleSignup(req.ip);
    return signupWithEmail(ctx, appOf(req), parsed, req.ip);
  });

  app.post("/signer/v1/auth", async (req) => {
    const parsed = parseOrThrow(authRequestSchema, body(req), "request");
    return authWithEmail(ctx, appOf(req), parsed, req.ip);
  });

  app.post("/signer/v1/otp", async (req) => {
    const parsed = parseOrThrow(otpRequestSchema, body(req), "request");
    return verifyEmailOtp(ctx, appOf(req), parsed, req.ip);
  });

  /**
   * Authenticates a key-management request carried inside a signer request, if its path is the expected
   * one. `fresh` requests (those that change something) must be recent and are single use.
   */
  async function stamped(
    req: FastifyRequest,
    expectedPath: string,
    submit: boolean,
    opts: { passkey?: boolean; allowRootOrg?: boolean; fresh?: boolean } = {},
  ) {
    const { stampedRequest } = parseOrThrow(stampedRequestBodySchema, body(req), "request");
    let path: string;
    try {
      path = new URL(stampedRequest.url, "http://x").pathname;
    } catch {
      throw new ApiError(400, ErrorCode.INVALID_REQUEST, "stampedRequest.url is not a URL");
    }
    if (path !== expectedPath) {
      throw new ApiError(400, ErrorCode.INVALID_REQUEST, `stampedRequest.url must be ${expectedPath}`);
    }
    const now = ctx.now();
    const caller = await authenticateStamp(ctx.db, {
      body: stampedRequest.body,
      headerName: stampedRequest.stamp.stampHeaderName,
      headerValue: stampedRequest.stamp.stampHeaderValue,
      submit: submit || (opts.fresh ?? false),
      now,
      ...(opts.passkey ? { apps: ctx.apps, allowRootOrg: opts.allowRootOrg ?? false } : {}),
    });
    if (caller.user.appId !== appOf(req).id) {
      throw new ApiError(403, ErrorCode.FORBIDDEN, "This session belongs to another app");
    }
    if (opts.fresh) await consumeStamp(ctx.db, stampedRequest.stamp.stampHeaderValue, now);
    return { caller, raw: stampedRequest.body };
  }

  app.post("/signer/v1/whoami", async (req) => {
    const { caller } = await stamped(req, "/public/v1/query/whoami", false, {
      passkey: true,
      allowRootOrg: true,
    });
    const addresses = await userAddresses(ctx.db, caller.user.orgId);
    return {
      ...(caller.user.email ? { email: caller.user.email } : {}),
      orgId: caller.user.orgId,
      userId: caller.user.id,
      ...addresses,
      ...(caller.passkey ? { credentialId: caller.passkey.credentialId } : {}),
    };
  });

  app.post("/signer/v1/prepare-oauth", async (req) => {
    const { nonce } = parseOrThrow(prepareOauthRequestSchema, body(req), "request");
    await perIp(
      "oauth-prepare-ip",
      req.ip,
      ctx.limits.oauthPreparesPerIp,
      "Too many sign-in attempts from this network. Try again later.",
    );
    return prepareOauth(ctx, appOf(req), nonce);
  });

  app.post("/signer/v1/add-oauth-provider", async (req) => {
    const { caller, raw } = await stamped(req, "/public/v1/submit/create_oauth_providers", true);
    await submitActivity(ctx, "create_oauth_providers", raw, caller);
    return { oauthProviders: (await listAuthMethods(ctx.db, caller.user)).oauthProviders };
  });

  app.post("/signer/v1/remove-oauth-provider", async (req) => {
    const { caller, raw } = await stamped(req, "/public/v1/submit/delete_oauth_providers", true);
    await submitActivity(ctx, "delete_oauth_providers", raw, caller);
    return {};
  });

  // The provider returns the browser here (a navigation: no API key, no CORS).
  app.get("/oauth/callback", async (req, reply) => {
    const query = req.query as Record<string, string | undefined>;
    const base = ctx.publicUrl ?? `${req.protocol}://${req.host}`;
    const result = await handleOauthCallback(ctx, query, `${base}/oauth/callback`, req.ip);
    reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
    if (result.kind === "redirect") return reply.redirect(result.location, 302);
    if (result.kind === "popup") {
      const { html, scriptHash } = popupPage(result.origin, result.message);
      return reply
        .header(
          "content-security-policy",
          `default-src 'none'; script-src 'sha256-${scriptHash}'; base-uri 'none'; frame-ancestors 'none'`,
        )
        .type("text/html; charset=utf-8")
        .send(html);
    }
    return reply
      .code(result.status)
      .header("content-security-policy", "default-src 'none'; frame-ancestors 'none'")
      .type("text/html; charset=utf-8")
      .send(messagePage(result.title, result.message));
  });

  app.post("/signer/v1/list-auth-methods", async (req) => {
    const { suborgId } = parseOrThrow(listAuthMethodsSchema, body(req), "request");
    const { caller } = await stamped(req, "/public/v1/query/whoami", false);
    if (suborgId !== caller.user.orgId)
      throw new ApiError(403, ErrorCode.FORBIDDEN, "suborgId is not the signed-in user's");
    return listAuthMethods(ctx.db, caller.user);
  });

  // Second factor (TOTP). Changes need a fresh, single-use stamp; listing takes any valid session stamp.
  const WHOAMI = "/public/v1/query/whoami";
  app.post("/signer/v1/auth-list-multi-factors", async (req) => {
    const { caller } = await stamped(req, WHOAMI, false);
    return { multiFactors: await listFactors(ctx.db, caller.user.id) };
  });
  app.post("/signer/v1/auth-request-multi-factor", async (req) => {
    parseOrThrow(mfaRequestSchema, body(req), "request");
    const { caller } = await stamped(req, WHOAMI, false, { fresh: true });
    return requestTotp(ctx, appOf(req), caller.user);
  });
  app.post("/signer/v1/auth-verify-multi-factor", async (req) => {
    const p = parseOrThrow(mfaVerifySchema, body(req), "request");
    const { caller } = await stamped(req, WHOAMI, false, { fresh: true });
    await checkFactorCode(ctx, caller.user.id, p.multiFactorId, p.multiFactorCode, { allowUnverified: true });
    await ctx.audit("mfa.enabled", { appId: caller.user.appId, userId: caller.user.id, ip: req.ip });
    return { multiFactors: await listFactors(ctx.db, caller.user.id) };
  });
  app.post("/signer/v1/auth-delete-multi-factors", async (req) => {
    const p = parseOrThrow(mfaDeleteSchema, body(req), "request");
    const { caller } = await stamped(req, WHOAMI, false, { fresh: true });
    return { multiFactors: await deleteFactors(ctx, caller.user, p.multiFactorIds) };
  });
  app.post("/signer/v1/auth-validate-multi-factors", async (req) => {
    const p = parseOrThrow(mfaValidateSchema, body(req), "request");
    return validateMultiFactors(ctx, appOf(req), p.encryptedPayload, p.multiFactors, req.ip);
  });

  app.post("/signer/v1/sign-payload", async (req) => {
    const { caller, raw } = await stamped(req, "/public/v1/submit/sign_raw_payload", true);
    const { activity } = await submitActivity(ctx, "sign_raw_payload", raw, caller);
    const result = (activity.result as { signRawPayloadResult?: { r: string; s: string; v: string } })
      .signRawPayloadResult;
    if (!result) throw new ApiError(500, ErrorCode.INTERNAL, "Signing produced no result");
    // EVM answers carry v as 27/28; ed25519 answers keep v = 00 after the 64-byte signature. Base58 has
    // no "0", so only an EVM address starts with 0x.
    const intent = (activity.intent as { signRawPayloadIntentV2?: { signWith?: string } })
      .signRawPayloadIntentV2;
    const isEvm = intent?.signWith?.startsWith("0x") ?? false;
    const v = isEvm ? (27 + Number.parseInt(result.v, 16)).toString(16) : "00";
    return { signature: `0x${result.r}${result.s}${v}` };
  });

  // Key-management API: the stamp alone authenticates; the header carries it.
  const publicHandler = (submit: boolean) => async (req: FastifyRequest<{ Params: { name: string } }>) => {
    const raw = req.rawBody;
    if (raw === undefined) throw new ApiError(400, ErrorCode.INVALID_REQUEST, "A JSON body is required");
    const webauthn = req.headers[WEBAUTHN_STAMP_HEADER_NAME.toLowerCase()];
    const apiStamp = req.headers[STAMP_HEADER_NAME.toLowerCase()];
    const headerName =
      typeof apiStamp === "string"
        ? STAMP_HEADER_NAME
        : typeof webauthn === "string"
          ? WEBAUTHN_STAMP_HEADER_NAME
          : "";
    const headerValue =
      typeof apiStamp === "string" ? apiStamp : typeof webauthn === "string" ? webauthn : "";
    if (!headerName) throw unauthorized("Missing X-Stamp header", ErrorCode.INVALID_STAMP);
    // A passkey may stamp key-management requests; addressed to the app's root organisation it may only
    // create a read-write session (passkey login in one prompt).
    const caller = await authenticateStamp(ctx.db, {
      body: raw,
      headerName,
      headerValue,
      submit,
      now: ctx.now(),
      apps: ctx.apps,
      allowRootOrg: submit && req.params.name === "create_read_write_session",
    });
    if (submit) {
      const { activity } = await submitActivity(ctx, req.params.name, raw, caller);
      return { activity };
    }
    return runQuery(ctx, req.params.name, caller);
  };
  app.post("/public/v1/query/:name", publicHandler(false));
  app.post("/public/v1/submit/:name", publicHandler(true));

  registerFrames(app, ctx);

  if (ctx.dev) {
    app.get("/dev/mailbox.json", async () => ctx.mailer.mailbox());
    app.get("/dev/mailbox", async (_req, reply: FastifyReply) =>
      reply.type("text/html; charset=utf-8").send(mailboxPage(ctx.mailer.mailbox())),
    );
  }

  return app;
}
