import { hashMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmailUser,
  type Harness,
  LINK_APP,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

interface Case {
  name: string;
  path: string;
  body: unknown | (() => unknown);
  headers?: Record<string, string>;
  status: number;
  code: string;
}

describe("bad input gets a clear 4xx and a stable code", () => {
  let h: Harness;
  let user: EmailUser;
  let other: typeof user;

  const signUp = (email: string) => signUpByEmail(h, email, KEY);

  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: { mailsPerEmail: 3 } });
    user = await signUp("user@example.com");
    other = await signUp("other@example.com");
  });
  afterAll(async () => {
    await h?.close();
  });

  const pub = () => targetKey().publicKey;
  const sign = (
    over: Partial<{
      ts: number;
      signWith: string;
      payload: string;
      hash: string;
      key: Uint8Array;
      org: string;
    }> = {},
  ) =>
    stamped(
      "/public/v1/submit/sign_raw_payload",
      signBody(
        over.org ?? user.orgId,
        over.signWith ?? user.address,
        over.payload ?? hashMessage("x"),
        over.hash ?? "HASH_FUNCTION_NO_OP",
        over.ts ?? Date.now(),
      ),
      over.key ?? user.sessionKey,
    );

  const cases: Case[] = [
    {
      name: "no app key",
      path: "/signer/v1/signer-config",
      body: {},
      headers: { authorization: "" },
      status: 401,
      code: "UNAUTHENTICATED",
    },
    {
      name: "unknown app key",
      path: "/signer/v1/signer-config",
      body: {},
      headers: { authorization: "Bearer lk_nope_nope_nope_nope" },
      status: 401,
      code: "INVALID_API_KEY",
    },
    {
      name: "origin not allowed for the app",
      path: "/signer/v1/signer-config",
      body: {},
      headers: { origin: "http://evil.test" },
      status: 403,
      code: "ORIGIN_NOT_ALLOWED",
    },
    {
      name: "another app's origin",
      path: "/signer/v1/signer-config",
      body: {},
      headers: { origin: LINK_APP.allowedOrigins[0] as string },
      status: 403,
      code: "ORIGIN_NOT_ALLOWED",
    },
    { name: "invalid JSON", path: "/signer/v1/lookup", body: "{not json", status: 400, code: "INVALID_JSON" },
    {
      name: "body over 64 KiB",
      path: "/signer/v1/lookup",
      body: JSON.stringify({ email: "a".repeat(70_000) }),
      status: 413,
      code: "BODY_TOO_LARGE",
    },
    {
      name: "lookup without email",
      path: "/signer/v1/lookup",
      body: {},
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup with a bad email",
      path: "/signer/v1/signup",
      body: () => ({ email: "not-an-email", targetPublicKey: pub() }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup without a target key",
      path: "/signer/v1/signup",
      body: { email: "x@example.com" },
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup with a key off the curve",
      path: "/signer/v1/signup",
      body: { email: "x@example.com", targetPublicKey: `04${"11".repeat(64)}` },
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup with a bad emailMode",
      path: "/signer/v1/signup",
      body: () => ({ email: "x@example.com", targetPublicKey: pub(), emailMode: "sms" }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup with a too short session",
      path: "/signer/v1/signup",
      body: () => ({ email: "x@example.com", targetPublicKey: pub(), expirationSeconds: 5 }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "signup of an existing user",
      path: "/signer/v1/signup",
      body: () => ({ email: "user@example.com", targetPublicKey: pub() }),
      status: 409,
      code: "USER_EXISTS",
    },
    {
      name: "magic link to a URL off the allow-list",
      path: "/signer/v1/signup",
      body: () => ({
        email: "y@example.com",
        targetPublicKey: pub(),
        emailMode: "magicLink",
        redirectUrl: "http://evil.test/steal",
      }),
      status: 400,
      code: "INVALID_REDIRECT_URL",
    },
    {
      name: "passkey signup (not served yet)",
      path: "/signer/v1/signup",
      body: { passkey: { challenge: "x", attestation: {} } },
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "auth of an unknown user",
      path: "/signer/v1/auth",
      body: () => ({ email: "nobody@example.com", targetPublicKey: pub() }),
      status: 404,
      code: "USER_NOT_FOUND",
    },
    {
      name: "otp with letters",
      path: "/signer/v1/otp",
      body: () => ({ orgId: user.orgId, otpId: "x", otpCode: "12ab56", targetPublicKey: pub() }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "otp with an unknown otpId",
      path: "/signer/v1/otp",
      body: () => ({ orgId: user.orgId, otpId: "nope", otpCode: "123456", targetPublicKey: pub() }),
      status: 400,
      code: "INVALID_OTP",
    },
    {
      name: "whoami without stampedRequest",
      path: "/signer/v1/whoami",
      body: {},
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "whoami with a garbage stamp",
      path: "/signer/v1/whoami",
      body: () => ({
        stampedRequest: {
          body: JSON.stringify({ organizationId: user.orgId }),
          stamp: { stampHeaderName: "X-Stamp", stampHeaderValue: "garbage" },
          url: "/public/v1/query/whoami",
        },
      }),
      status: 401,
      code: "INVALID_STAMP",
    },
    {
      name: "whoami for the wrong path",
      path: "/signer/v1/whoami",
      body: () => stamped("/public/v1/query/get_user", { organizationId: user.orgId }, user.sessionKey),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "whoami stamped by an unknown key",
      path: "/signer/v1/whoami",
      body: () => stamped("/public/v1/query/whoami", { organizationId: user.orgId }, targetKey().privateKey),
      status: 401,
      code: "INVALID_STAMP",
    },
    {
      name: "whoami for another user's org",
      path: "/signer/v1/whoami",
      body: () => stamped("/public/v1/query/whoami", { organizationId: other.orgId }, user.sessionKey),
      status: 403,
      code: "FORBIDDEN",
    },
    {
      name: "sign-payload with a body that differs from what was stamped",
      path: "/signer/v1/sign-payload",
      body: () => {
        const r = sign();
        return {
          stampedRequest: {
            ...r.stampedRequest,
            body: r.stampedRequest.body.replace(user.orgId, other.orgId),
          },
        };
      },
      status: 401,
      code: "INVALID_STAMP",
    },
    {
      name: "sign-payload older than 5 minutes",
      path: "/signer/v1/sign-payload",
      body: () => sign({ ts: Date.now() - 6 * 60_000 }),
      status: 401,
      code: "STAMP_EXPIRED",
    },
    {
      name: "sign-payload from the future",
      path: "/signer/v1/sign-payload",
      body: () => sign({ ts: Date.now() + 2 * 60_000 }),
      status: 401,
      code: "STAMP_IN_FUTURE",
    },
    {
      name: "sign-payload with an unknown account",
      path: "/signer/v1/sign-payload",
      body: () => sign({ signWith: "0x0000000000000000000000000000000000000001" }),
      status: 404,
      code: "ACCOUNT_NOT_FOUND",
    },
    {
      name: "sign-payload with another user's address",
      path: "/signer/v1/sign-payload",
      body: () => sign({ signWith: other.address }),
      status: 404,
      code: "ACCOUNT_NOT_FOUND",
    },
    {
      name: "sign-payload of a non-32-byte digest",
      path: "/signer/v1/sign-payload",
      body: () => sign({ payload: "0xabcd" }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "sign-payload with bad hex",
      path: "/signer/v1/sign-payload",
      body: () => sign({ payload: "0xzz" }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "sign-payload with an unknown hash function",
      path: "/signer/v1/sign-payload",
      body: () => sign({ hash: "HASH_FUNCTION_MD5" }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    { name: "unknown route", path: "/signer/v1/nope", body: {}, status: 404, code: "NOT_FOUND" },
  ];

  it.each(cases)("$name → $status $code", async (c) => {
    const usersBefore = await h.service.ctx.db.selectFrom("users").select("id").execute();
    const headers: Record<string, string> = { ...KEY, ...(c.headers ?? {}) };
    if (headers.authorization === "") delete headers.authorization;
    const body = typeof c.body === "function" ? (c.body as () => unknown)() : c.body;
    const res = await post(h.url, c.path, body, headers);
    expect(res.status).toBe(c.status);
    expect(res.json.code).toBe(c.code);
    expect(typeof res.json.error).toBe("string");
    expect(res.json.error as string).not.toMatch(/at .*\.ts:\d+/);
    // Nothing half-written: a refused request creates no user.
    const usersAfter = await h.service.ctx.db.selectFrom("users").select("id").execute();
    expect(usersAfter.length).toBe(usersBefore.length);
  });

  it("answers 415 for a body that is not JSON", async () => {
    const res = await fetch(`${h.url}/signer/v1/lookup`, {
      method: "POST",
      headers: { ...KEY, "content-type": "text/plain" },
      body: "email=x",
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers the key-management API's errors as {code, message, details}", async () => {
    const res = await post(h.url, "/public/v1/query/whoami", JSON.stringify({ organizationId: user.orgId }), {
      "X-Stamp": "bad",
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: "INVALID_STAMP", details: [] });
    expect(typeof res.json.message).toBe("string");
    const missing = await post(
      h.url,
      "/public/v1/query/whoami",
      JSON.stringify({ organizationId: user.orgId }),
    );
    expect(missing.status).toBe(401);
    const unknown = await post(h.url, "/public/v1/submit/transfer_everything", JSON.stringify({}), {
      "X-Stamp": stamped("/x", {}, user.sessionKey).stampedRequest.stamp.stampHeaderValue,
    });
    expect(unknown.status).toBe(403);
  });

  it("throttles mail to one address with 429 and Retry-After", async () => {
    const email = "throttle@example.com";
    const t = targetKey();
    const first = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, KEY);
    expect(first.status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(
        (await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, KEY)).status,
      ).toBe(200);
    const limited = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, KEY);
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers CORS preflights only for allowed origins, never reflecting others", async () => {
    const ok = await fetch(`${h.url}/signer/v1/lookup`, {
      method: "OPTIONS",
      headers: { origin: "http://app.test", "access-control-request-method": "POST" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://app.test");
    const bad = await fetch(`${h.url}/signer/v1/lookup`, {
      method: "OPTIONS",
      headers: { origin: "http://evil.test", "access-control-request-method": "POST" },
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });
});
