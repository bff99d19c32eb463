import { randomBytes } from "node:crypto";
import { stampWithPrivateKey } from "@latchkey/protocol";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeFrom,
  type Harness,
  LINK_APP,
  linkFrom,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";
import { makeSplitWallet, SPLIT, SPLIT_APP, signRawBody, submitStamped } from "./helpers/splitKeyHolder";
import { SoftAuthenticator } from "./soft-authenticator";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const LINK_KEY = { authorization: `Bearer ${LINK_APP.apiKeys[0]}` };
const challenge = () => randomBytes(32).toString("base64url");

describe.each(["sqlite", "postgres"] as const)("passkeys and the authenticator-app factor (%s)", (kind) => {
  let h: Harness;
  let rootOrgId: string;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [TEST_APP, LINK_APP, SPLIT_APP] });
    rootOrgId = (await post(h.url, "/signer/v1/signer-config", {}, KEY)).json.rootOrgId as string;
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A passkey-stamped key-management request, as a browser would send it. */
  function passkeyStamped(
    auth: SoftAuthenticator,
    path: string,
    body: object,
    opts: { origin?: string; rpId?: string } = {},
  ) {
    const text = JSON.stringify(body);
    return {
      stampedRequest: {
        body: text,
        stamp: { stampHeaderName: "X-Stamp-WebAuthn", stampHeaderValue: auth.stamp(text, opts) },
        url: `https://signer.test${path}`,
      },
    };
  }

  /** Passkey login in one prompt: a passkey-stamped create_read_write_session addressed to the root org. */
  async function passkeyLogin(auth: SoftAuthenticator) {
    const target = targetKey();
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
      timestampMs: String(Date.now()),
      organizationId: rootOrgId,
      parameters: { targetPublicKey: target.publicKey, expirationSeconds: "900" },
    });
    const res = await post(h.url, "/public/v1/submit/create_read_write_session", body, {
      "X-Stamp-WebAuthn": auth.stamp(body),
    });
    expect(res.json.message ?? "").toBe("");
    expect(res.status).toBe(200);
    const result = (
      res.json.activity as {
        result: { createReadWriteSessionResultV2: { credentialBundle: string; organizationId: string } };
      }
    ).result.createReadWriteSessionResultV2;
    return { sessionKey: await target.open(result.credentialBundle), orgId: result.organizationId };
  }

  const emailUser = (email: string) => signUpByEmail(h, email, KEY);

  /**
   * An MFA change as the client sends it: a recent, single-use body signed for this operation with its
   * parameters inside, and the same parameters beside it (the reference shape).
   */
  const MFA_OPERATIONS: Record<string, string> = {
    "/signer/v1/auth-request-multi-factor": "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
    "/signer/v1/auth-verify-multi-factor": "OPERATION_TYPE_VERIFY_MULTI_FACTOR",
    "/signer/v1/auth-delete-multi-factors": "OPERATION_TYPE_DELETE_MULTI_FACTORS",
  };
  const mfaChange = (
    path: string,
    orgId: string,
    key: Uint8Array,
    parameters: Record<string, unknown>,
    ts = Date.now(),
  ) => ({
    ...stamped(
      "/public/v1/query/whoami",
      { type: MFA_OPERATIONS[path], timestampMs: String(ts), organizationId: orgId, parameters },
      key,
    ),
    ...parameters,
  });

  it("signs up with a passkey, logs in with it in one prompt, and signs without another", async () => {
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const signup = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: challenge(), attestation: auth.attest(challenge()) } },
      KEY,
    );
    // The attestation's own challenge must be the one sent beside it.
    expect(signup.status).toBe(400);
    expect(signup.json.code).toBe("PASSKEY_VERIFICATION_FAILED");

    const c = challenge();
    const ok = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: c, attestation: auth.attest(c) }, email: `pk-${kind}@example.com` },
      KEY,
    );
    expect(ok.status).toBe(200);
    expect(ok.json.address).toMatch(/^0x/);

    // DESIGN's lookup: a passkey-stamped whoami addressed to the root organisation finds the user.
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      passkeyStamped(auth, "/public/v1/query/whoami", {
        organizationId: rootOrgId,
        timestampMs: String(Date.now()),
      }),
      KEY,
    );
    expect(who.json.error ?? "").toBe("");
    expect(who.status).toBe(200);
    expect(who.json).toMatchObject({
      orgId: ok.json.orgId,
      userId: ok.json.userId,
      address: ok.json.address,
      credentialId: auth.credentialIdB64,
    });
    // An email given at passkey sign-up is not proven, so it is not an email sign-in.
    expect(who.json.email).toBeUndefined();
    expect(
      (await post(h.url, "/signer/v1/lookup", { email: `pk-${kind}@example.com` }, KEY)).json.orgId,
    ).toBeNull();

    const { sessionKey, orgId } = await passkeyLogin(auth);
    expect(orgId).toBe(ok.json.orgId);
    const sig = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        {
          type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
          timestampMs: String(Date.now()),
          organizationId: orgId,
          parameters: {
            signWith: ok.json.address,
            payload: `0x${"ab".repeat(32)}`,
            encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
            hashFunction: "HASH_FUNCTION_NO_OP",
          },
        },
        sessionKey,
      ),
      KEY,
    );
    expect(sig.status).toBe(200);
  });

  it("signs up with a passkey and gets a session in the same prompt", async () => {
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const target = targetKey();
    const c = challenge();
    const res = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: c, attestation: auth.attest(c) }, targetPublicKey: target.publicKey },
      KEY,
    );
    expect(res.status).toBe(200);
    const key = await target.open(res.json.credentialBundle as string);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: res.json.orgId }, key),
      KEY,
    );
    expect(who.json).toMatchObject({
      orgId: res.json.orgId,
      userId: res.json.userId,
      address: res.json.address,
    });
    // The same attestation again is refused: the credential exists.
    const again = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: c, attestation: auth.attest(c) } },
      KEY,
    );
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("PASSKEY_EXISTS");
  });

  it("in a split-custody app a passkey sign-up makes a user with no wallet; after a passkey login the key holder's share signs", async () => {
    const auth = new SoftAuthenticator("split.test", "http://split.test");
    const target = targetKey();
    const c = challenge();
    const res = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: c, attestation: auth.attest(c) }, targetPublicKey: target.publicKey },
      SPLIT,
    );
    expect(res.status).toBe(200);
    expect(res.json.address).toBeUndefined();
    const orgId = res.json.orgId as string;
    const sessionKey = await target.open(res.json.credentialBundle as string);
    const whoami = async (key: Uint8Array) =>
      post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: orgId }, key),
        SPLIT,
      );
    expect((await whoami(sessionKey)).json).toMatchObject({ orgId, custody: "split", walletState: "none" });

    const holder = await makeSplitWallet(h, { orgId, userId: res.json.userId as string, sessionKey }, SPLIT);
    expect((await whoami(sessionKey)).json).toMatchObject({ walletState: "ready", address: holder.address });
    const wallet = await h.service.ctx.db
      .selectFrom("wallets")
      .select(["sealed_mnemonic", "custody"])
      .where("org_id", "=", orgId)
      .executeTakeFirstOrThrow();
    expect(wallet).toEqual({ sealed_mnemonic: "", custody: "split" });

    // Passkey login in one prompt (the split app's root organisation), then a signature with the share.
    const splitRoot = (await post(h.url, "/signer/v1/signer-config", {}, SPLIT)).json.rootOrgId as string;
    const loginTarget = targetKey();
    const loginBody = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
      timestampMs: String(Date.now()),
      organizationId: splitRoot,
      parameters: { targetPublicKey: loginTarget.publicKey, expirationSeconds: "900" },
    });
    const login = await post(h.url, "/public/v1/submit/create_read_write_session", loginBody, {
      "X-Stamp-WebAuthn": auth.stamp(loginBody),
    });
    expect(login.status).toBe(200);
    const session = (
      login.json.activity as {
        result: { createReadWriteSessionResultV2: { credentialBundle: string; organizationId: string } };
      }
    ).result.createReadWriteSessionResultV2;
    expect(session.organizationId).toBe(orgId);
    const loginKey = await loginTarget.open(session.credentialBundle);
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: orgId,
      ...signRawBody(holder.address, `0x${"cd".repeat(32)}`),
    });
    const withShare = await submitStamped(
      h.url,
      "sign_raw_payload",
      text,
      loginKey,
      await holder.sealFor(text),
    );
    expect(withShare.status).toBe(200);
    expect((withShare.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const other = JSON.stringify({ ...JSON.parse(text), timestampMs: String(Date.now() + 1) });
    const without = await submitStamped(h.url, "sign_raw_payload", other, loginKey);
    expect(without.status).toBe(403);
    expect(without.json.code).toBe("USER_SHARE_REQUIRED");
  });

  it("refuses replayed, stale, foreign-origin and unknown passkey stamps", async () => {
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const c = challenge();
    await post(h.url, "/signer/v1/signup", { passkey: { challenge: c, attestation: auth.attest(c) } }, KEY);
    const req = passkeyStamped(auth, "/public/v1/query/whoami", {
      organizationId: rootOrgId,
      timestampMs: String(Date.now()),
    });
    expect((await post(h.url, "/signer/v1/whoami", req, KEY)).status).toBe(200);
    const replay = await post(h.url, "/signer/v1/whoami", req, KEY);
    expect(replay.status).toBe(401);
    expect(replay.json.code).toBe("STAMP_REPLAYED");

    const stale = await post(
      h.url,
      "/signer/v1/whoami",
      passkeyStamped(auth, "/public/v1/query/whoami", {
        organizationId: rootOrgId,
        timestampMs: String(Date.now() - 10 * 60_000),
      }),
      KEY,
    );
    expect(stale.json.code).toBe("STAMP_EXPIRED");
    const foreign = await post(
      h.url,
      "/signer/v1/whoami",
      passkeyStamped(
        auth,
        "/public/v1/query/whoami",
        { organizationId: rootOrgId, timestampMs: String(Date.now()) },
        { origin: "http://evil.test" },
      ),
      KEY,
    );
    expect(foreign.status).toBe(401);
    expect(foreign.json.code).toBe("INVALID_STAMP");
    const wrongRp = await post(
      h.url,
      "/signer/v1/whoami",
      passkeyStamped(
        auth,
        "/public/v1/query/whoami",
        { organizationId: rootOrgId, timestampMs: String(Date.now()) },
        { rpId: "evil.test" },
      ),
      KEY,
    );
    expect(wrongRp.json.code).toBe("INVALID_STAMP");
    const stranger = new SoftAuthenticator("app.test", "http://app.test");
    const unknown = await post(
      h.url,
      "/signer/v1/whoami",
      passkeyStamped(stranger, "/public/v1/query/whoami", {
        organizationId: rootOrgId,
        timestampMs: String(Date.now()),
      }),
      KEY,
    );
    expect(unknown.json.code).toBe("INVALID_STAMP");
    // A passkey stamp for the root org signs in; it cannot sign payloads for it.
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      timestampMs: String(Date.now()),
      organizationId: rootOrgId,
      parameters: {
        signWith: "0x00",
        payload: "00",
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    const sign = await post(h.url, "/public/v1/submit/sign_raw_payload", body, {
      "X-Stamp-WebAuthn": auth.stamp(body),
    });
    expect(sign.status).toBe(403);
  });

  it("adds and removes passkeys while signed in, never the last way to sign in", async () => {
    const user = await emailUser(`adder-${kind}@example.com`);
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const c = challenge();
    const name = `passkey-${Date.now()}`;
    const createBody = {
      type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        authenticators: [{ authenticatorName: name, challenge: c, attestation: auth.attest(c) }],
      },
    };
    const text = JSON.stringify(createBody);
    const created = await post(h.url, "/public/v1/submit/create_authenticators", text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
    expect(created.status).toBe(200);
    const [authenticatorId] = (
      created.json.activity as { result: { createAuthenticatorsResult: { authenticatorIds: string[] } } }
    ).result.createAuthenticatorsResult.authenticatorIds;

    const methods = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      {
        suborgId: user.orgId,
        ...stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
      },
      KEY,
    );
    expect(methods.json).toMatchObject({
      email: `adder-${kind}@example.com`,
      oauthProviders: [],
      passkeys: [{ authenticatorId, name }],
      mfaFactors: [],
    });

    // The new passkey signs the user in.
    const login = await passkeyLogin(auth);
    expect(login.orgId).toBe(user.orgId);

    const del = {
      type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      parameters: { userId: user.userId, authenticatorIds: [authenticatorId] },
    };
    const dt = JSON.stringify(del);
    expect(
      (
        await post(h.url, "/public/v1/submit/delete_authenticators", dt, {
          "X-Stamp": stampWithPrivateKey(dt, user.sessionKey).stampHeaderValue,
        })
      ).status,
    ).toBe(200);

    // A passkey-only user cannot remove their only passkey.
    const solo = new SoftAuthenticator("app.test", "http://app.test");
    const c2 = challenge();
    const s = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge: c2, attestation: solo.attest(c2) } },
      KEY,
    );
    const soloSession = await passkeyLogin(solo);
    const list = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      {
        suborgId: s.json.orgId,
        ...stamped("/public/v1/query/whoami", { organizationId: s.json.orgId }, soloSession.sessionKey),
      },
      KEY,
    );
    const onlyId = (list.json.passkeys as { authenticatorId: string }[])[0]?.authenticatorId;
    const last = {
      type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
      timestampMs: String(Date.now()),
      organizationId: s.json.orgId,
      parameters: { userId: s.json.userId, authenticatorIds: [onlyId] },
    };
    const lt = JSON.stringify(last);
    const refused = await post(h.url, "/public/v1/submit/delete_authenticators", lt, {
      "X-Stamp": stampWithPrivateKey(lt, soloSession.sessionKey).stampHeaderValue,
    });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("LAST_AUTH_METHOD");
  });

  it("turns on an authenticator app, then asks for it after the email code", async () => {
    const email = `mfa-${kind}@example.com`;
    const user = await emailUser(email);
    const requested = await post(
      h.url,
      "/signer/v1/auth-request-multi-factor",
      mfaChange("/signer/v1/auth-request-multi-factor", user.orgId, user.sessionKey, {
        multiFactorType: "totp",
      }),
      KEY,
    );
    expect(requested.status).toBe(200);
    const url = new URL(requested.json.multiFactorTotpUrl as string);
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("issuer")).toBe("Test App");
    const secret = url.searchParams.get("secret") as string;
    const factorId = requested.json.multiFactorId as string;
    const totp = (offsetSteps = 0) =>
      generate({ secret, epoch: Math.floor(h.clock.now / 1000) + offsetSteps * 30 });

    // Not verified yet: not required at sign-in, not listed.
    expect(
      (
        await post(
          h.url,
          "/signer/v1/auth-list-multi-factors",
          stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
          KEY,
        )
      ).json,
    ).toEqual({ multiFactors: [] });
    const wrongFirst = await post(
      h.url,
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
        multiFactorId: factorId,
        multiFactorCode: "000000",
      }),
      KEY,
    );
    expect(wrongFirst.json).toMatchObject({ code: "INVALID_MFA_CODE", error: "Invalid MFA code" });
    const verified = await post(
      h.url,
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
        multiFactorId: factorId,
        multiFactorCode: await totp(),
      }),
      KEY,
    );
    expect(verified.json).toEqual({ multiFactors: [{ multiFactorId: factorId, multiFactorType: "totp" }] });

    // Email code → MFA_REQUIRED with a sealed payload → the factor code → session.
    const t = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, KEY);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      KEY,
    );
    expect(otp.json).toMatchObject({
      status: "MFA_REQUIRED",
      multiFactors: [{ multiFactorId: factorId, multiFactorType: "totp" }],
    });
    expect(otp.json.credentialBundle).toBeUndefined();
    const payload = otp.json.encryptedPayload as string;

    // The code used to verify the factor was spent: the same code is refused.
    const reused = await post(
      h.url,
      "/signer/v1/auth-validate-multi-factors",
      {
        encryptedPayload: payload,
        multiFactors: [{ multiFactorId: factorId, multiFactorCode: await totp() }],
      },
      KEY,
    );
    expect(reused.json.error).toBe("Invalid MFA code");

    h.clock.advance(30_000);
    try {
      const next = await totp();
      const done = await post(
        h.url,
        "/signer/v1/auth-validate-multi-factors",
        { encryptedPayload: payload, multiFactors: [{ multiFactorId: factorId, multiFactorCode: next }] },
        KEY,
      );
      expect(done.status).toBe(200);
      const sessionKey = await t.open((done.json.payload as { credentialBundle: string }).credentialBundle);
      const who = await post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: user.orgId }, sessionKey),
        KEY,
      );
      expect(who.json.email).toBe(email);
      // The payload is single use.
      h.clock.advance(30_000);
      const again = await post(
        h.url,
        "/signer/v1/auth-validate-multi-factors",
        {
          encryptedPayload: payload,
          multiFactors: [{ multiFactorId: factorId, multiFactorCode: await totp() }],
        },
        KEY,
      );
      expect(again.json.code).toBe("INVALID_MFA_PAYLOAD");
    } finally {
      h.clock.advance(-60_000);
    }
  });

  it("asks a magic-link user for the factor before mailing the link", async () => {
    const email = `mfa-link-${kind}@example.com`;
    const t = targetKey();
    const before = h.smtp.mails.length;
    const s = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, LINK_KEY);
    const key = await t.open(
      linkFrom((await h.smtp.waitFor(email, before)).raw).searchParams.get("bundle") as string,
    );
    const orgId = s.json.orgId as string;
    const req = await post(
      h.url,
      "/signer/v1/auth-request-multi-factor",
      mfaChange("/signer/v1/auth-request-multi-factor", orgId, key, { multiFactorType: "totp" }),
      LINK_KEY,
    );
    const secret = new URL(req.json.multiFactorTotpUrl as string).searchParams.get("secret") as string;
    const factorId = req.json.multiFactorId as string;
    await post(
      h.url,
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", orgId, key, {
        multiFactorId: factorId,
        multiFactorCode: await generate({ secret, epoch: Math.floor(h.clock.now / 1000) }),
      }),
      LINK_KEY,
    );

    const mark = h.smtp.mails.length;
    const needs = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, LINK_KEY);
    expect(needs.status).toBe(401);
    expect(needs.json).toEqual({
      error: "MFA is required for this user",
      code: "MFA_REQUIRED",
      data: { multiFactors: [{ multiFactorId: factorId, multiFactorType: "totp" }] },
    });
    expect(h.smtp.mails.length).toBe(mark);

    h.clock.advance(30_000);
    try {
      const code = await generate({ secret, epoch: Math.floor(h.clock.now / 1000) });
      const ok = await post(
        h.url,
        "/signer/v1/auth",
        {
          email,
          targetPublicKey: t.publicKey,
          multiFactors: [{ multiFactorId: factorId, multiFactorCode: code }],
        },
        LINK_KEY,
      );
      expect(ok.status).toBe(200);
      const link = linkFrom((await h.smtp.waitFor(email, mark)).raw);
      expect(link.searchParams.get("orgId")).toBe(orgId);
    } finally {
      h.clock.advance(-30_000);
    }
  });

  it("answers bad MFA input with clear errors and locks a factor after five wrong codes", async () => {
    const user = await emailUser(`mfa-bad-${kind}@example.com`);
    const bad = async (path: string, b: object, status: number, code: string) => {
      const r = await post(h.url, path, b, KEY);
      expect({ path, status: r.status, code: r.json.code }).toEqual({ path, status, code });
    };
    await bad(
      "/signer/v1/auth-request-multi-factor",
      mfaChange("/signer/v1/auth-request-multi-factor", user.orgId, user.sessionKey, {
        multiFactorType: "sms",
      }),
      400,
      "INVALID_REQUEST",
    );
    await bad("/signer/v1/auth-request-multi-factor", { multiFactorType: "totp" }, 400, "INVALID_REQUEST");
    await bad(
      "/signer/v1/auth-request-multi-factor",
      {
        ...stamped(
          "/public/v1/query/whoami",
          {
            type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
            organizationId: user.orgId,
            parameters: { multiFactorType: "totp" },
          },
          user.sessionKey,
        ),
        multiFactorType: "totp",
      },
      400,
      "INVALID_REQUEST",
    );
    await bad(
      "/signer/v1/auth-request-multi-factor",
      mfaChange(
        "/signer/v1/auth-request-multi-factor",
        user.orgId,
        user.sessionKey,
        { multiFactorType: "totp" },
        Date.now() - 600_000,
      ),
      401,
      "STAMP_EXPIRED",
    );
    const once = mfaChange("/signer/v1/auth-request-multi-factor", user.orgId, user.sessionKey, {
      multiFactorType: "totp",
    });
    const first = await post(h.url, "/signer/v1/auth-request-multi-factor", once, KEY);
    expect(first.status).toBe(200);
    await bad("/signer/v1/auth-request-multi-factor", once, 401, "STAMP_REPLAYED");
    await bad(
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
        multiFactorId: first.json.multiFactorId,
        multiFactorCode: "12ab56",
      }),
      400,
      "INVALID_REQUEST",
    );
    await bad(
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
        multiFactorId: "nope",
        multiFactorCode: "123456",
      }),
      404,
      "MFA_FACTOR_NOT_FOUND",
    );
    await bad(
      "/signer/v1/auth-delete-multi-factors",
      mfaChange("/signer/v1/auth-delete-multi-factors", user.orgId, user.sessionKey, {
        multiFactorIds: ["nope"],
      }),
      404,
      "MFA_FACTOR_NOT_FOUND",
    );
    await bad(
      "/signer/v1/auth-delete-multi-factors",
      mfaChange("/signer/v1/auth-delete-multi-factors", user.orgId, user.sessionKey, { multiFactorIds: [] }),
      400,
      "INVALID_REQUEST",
    );
    await bad(
      "/signer/v1/auth-validate-multi-factors",
      { encryptedPayload: "garbage", multiFactors: [{ multiFactorId: "x", multiFactorCode: "123456" }] },
      400,
      "INVALID_MFA_PAYLOAD",
    );
    await bad(
      "/signer/v1/auth-validate-multi-factors",
      { encryptedPayload: "garbage", multiFactors: [] },
      400,
      "INVALID_REQUEST",
    );

    const factorId = first.json.multiFactorId as string;
    for (let i = 0; i < 5; i++) {
      await bad(
        "/signer/v1/auth-verify-multi-factor",
        mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
          multiFactorId: factorId,
          multiFactorCode: "000000",
        }),
        400,
        "INVALID_MFA_CODE",
      );
    }
    const secret = new URL(first.json.multiFactorTotpUrl as string).searchParams.get("secret") as string;
    const locked = await post(
      h.url,
      "/signer/v1/auth-verify-multi-factor",
      mfaChange("/signer/v1/auth-verify-multi-factor", user.orgId, user.sessionKey, {
        multiFactorId: factorId,
        multiFactorCode: await generate({ secret, epoch: Math.floor(h.clock.now / 1000) }),
      }),
      KEY,
    );
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe("MFA_LOCKED");

    // Removing the factor works with a fresh stamp.
    const removed = await post(
      h.url,
      "/signer/v1/auth-delete-multi-factors",
      mfaChange("/signer/v1/auth-delete-multi-factors", user.orgId, user.sessionKey, {
        multiFactorIds: [factorId],
      }),
      KEY,
    );
    expect(removed.json).toEqual({ multiFactors: [] });
  });
});
