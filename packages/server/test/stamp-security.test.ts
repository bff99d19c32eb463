import {
  decodeStamp,
  encodeStamp,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { p256 } from "@noble/curves/nist";
import { hashMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmailUser,
  type Harness,
  post,
  signUpByEmail,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

/**
 * The three findings of issue 9, refused on both databases:
 * F1 a single-use stamp replayed in another encoding, or as its signature's twin (r, n - s: a high s is
 * accepted, as WebCrypto and @turnkey/api-key-stamper send it); F2 a stamp presented for another
 * operation than the one it was made for; F3 a NUL (or other control character) in a string field.
 */
const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const N = p256.Point.Fn.ORDER;
const WHOAMI_URL = "https://signer.test/public/v1/query/whoami";

/** The same stamp with its signature's twin (r, n - s): it verifies over the same body with the same key. */
function twinOf(header: string): string {
  const stamp = decodeStamp(header);
  const sig = p256.Signature.fromBytes(Buffer.from(stamp.signature, "hex"), "der");
  return encodeStamp({ ...stamp, signature: toHex(new p256.Signature(sig.r, N - sig.s).toBytes("der")) });
}
/** The same stamp with its DER's s written on one byte more (a leading 00): a length that is not minimal. */
function paddedDer(header: string): string {
  const stamp = decodeStamp(header);
  const sig = p256.Signature.fromBytes(Buffer.from(stamp.signature, "hex"), "der");
  const int = (v: bigint, pad: boolean) => {
    let h = v.toString(16);
    if (h.length % 2) h = `0${h}`;
    if (Number.parseInt(h.slice(0, 2), 16) >= 0x80) h = `00${h}`;
    if (pad) h = `00${h}`;
    return `02${(h.length / 2).toString(16).padStart(2, "0")}${h}`;
  };
  const seq = int(sig.r, false) + int(sig.s, true);
  return encodeStamp({ ...stamp, signature: `30${(seq.length / 2).toString(16).padStart(2, "0")}${seq}` });
}
const hasHighS = (header: string) =>
  p256.Signature.fromBytes(Buffer.from(decodeStamp(header).signature, "hex"), "der").hasHighS();

type Body = Record<string, unknown>;

describe.each(["sqlite", "postgres"] as const)("stamps and input (%s)", (kind) => {
  let h: Harness;
  let user: EmailUser;

  beforeAll(async () => {
    h = await startHarness(kind);
    user = await signUpByEmail(h, `stamps-${kind}@example.com`, KEY);
  });
  afterAll(async () => {
    await h?.close();
  });

  let clock = Date.now();
  /** Strictly increasing timestamps, as the client makes them: every body is a new one. */
  const ts = () => String(Math.max(Date.now(), ++clock));

  const stampHeader = (body: string, key = user.sessionKey) =>
    stampWithPrivateKey(body, key).stampHeaderValue;
  const wrap = (body: string, url: string, header = stampHeader(body)) => ({
    stampedRequest: { body, url, stamp: { stampHeaderName: "X-Stamp", stampHeaderValue: header } },
  });
  const mfaBody = (type: string, parameters: Body) =>
    JSON.stringify({ type, timestampMs: ts(), organizationId: user.orgId, parameters });
  const submitBody = (type: string, parameters: Body) =>
    JSON.stringify({ type, timestampMs: ts(), organizationId: user.orgId, parameters });

  /** What the service holds for the user; a refused request must leave every number as it was. */
  async function state() {
    const db = h.service.ctx.db;
    const count = async (
      table: "mfa_factors" | "api_keys" | "activities" | "authenticators" | "users" | "otps",
    ) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const factors = await db.selectFrom("mfa_factors").select(["id", "verified_at"]).orderBy("id").execute();
    return {
      factors,
      apiKeys: await count("api_keys"),
      activities: await count("activities"),
      authenticators: await count("authenticators"),
      users: await count("users"),
      otps: await count("otps"),
      mfa: await count("mfa_factors"),
    };
  }

  describe("F1: one signed body, one stamp", () => {
    /** Other encodings of the same stamp: each decodes to the same key and signature (or its twin). */
    function aliases(header: string): [string, string][] {
      const stamp = decodeStamp(header);
      const json = JSON.stringify(stamp);
      const b64 = (s: string) => Buffer.from(s).toString("base64url");
      const twin = decodeStamp(twinOf(header));
      return [
        ["a trailing =", `${header}=`],
        ["two trailing =", `${header}==`],
        ["upper-case hex", b64(JSON.stringify({ ...stamp, signature: stamp.signature.toUpperCase() }))],
        ["upper-case key", b64(JSON.stringify({ ...stamp, publicKey: stamp.publicKey.toUpperCase() }))],
        ["re-spaced JSON", b64(JSON.stringify(JSON.parse(json), null, 2))],
        [
          "re-ordered JSON",
          b64(
            JSON.stringify({ signature: stamp.signature, scheme: stamp.scheme, publicKey: stamp.publicKey }),
          ),
        ],
        ["an extra member", b64(JSON.stringify({ ...stamp, x: 1 }))],
        ["the twin signature, padded", `${encodeStamp(twin)}=`],
        [
          "the twin signature in upper-case hex",
          b64(JSON.stringify({ ...twin, signature: twin.signature.toUpperCase() })),
        ],
        ["the twin signature, re-spaced", b64(JSON.stringify(twin, null, 2))],
      ];
    }

    it("refuses an MFA enrolment stamp replayed in every other encoding; no factor is made", async () => {
      const body = mfaBody("OPERATION_TYPE_REQUEST_MULTI_FACTOR", { multiFactorType: "totp" });
      const header = stampHeader(body);
      const first = await post(
        h.url,
        "/signer/v1/auth-request-multi-factor",
        wrap(body, WHOAMI_URL, header),
        KEY,
      );
      expect(first.status).toBe(200);
      const second = await newSessionKey();
      const before = await state();
      for (const [name, alias] of aliases(header)) {
        const r = await post(
          h.url,
          "/signer/v1/auth-request-multi-factor",
          wrap(body, WHOAMI_URL, alias),
          KEY,
        );
        expect({ name, status: r.status, code: r.json.code }).toEqual({
          name,
          status: 401,
          code: "STAMP_NOT_CANONICAL",
        });
      }
      // A DER whose s carries a needless leading 00, for the signature and for its twin: not a DER stamp.
      for (const h0 of [header, twinOf(header)]) {
        const r = await post(
          h.url,
          "/signer/v1/auth-request-multi-factor",
          wrap(body, WHOAMI_URL, paddedDer(h0)),
          KEY,
        );
        expect({ status: r.status, code: r.json.code }).toEqual({ status: 401, code: "INVALID_STAMP" });
      }
      // The twin signature (a high s here: our stamps carry the low one) is a valid stamp of the same
      // body: the ledger has seen the body.
      expect(hasHighS(twinOf(header))).toBe(true);
      const twin = await post(
        h.url,
        "/signer/v1/auth-request-multi-factor",
        wrap(body, WHOAMI_URL, twinOf(header)),
        KEY,
      );
      expect({ status: twin.status, code: twin.json.code }).toEqual({ status: 401, code: "STAMP_REPLAYED" });
      // The canonical stamp again, and the same body stamped by another of the user's session keys: both
      // sign the same body, which the ledger has seen.
      const again = await post(
        h.url,
        "/signer/v1/auth-request-multi-factor",
        wrap(body, WHOAMI_URL, header),
        KEY,
      );
      expect({ status: again.status, code: again.json.code }).toEqual({
        status: 401,
        code: "STAMP_REPLAYED",
      });
      const other = await post(
        h.url,
        "/signer/v1/auth-request-multi-factor",
        wrap(body, WHOAMI_URL, stampHeader(body, second)),
        KEY,
      );
      expect({ status: other.status, code: other.json.code }).toEqual({
        status: 401,
        code: "STAMP_REPLAYED",
      });
      expect(await state()).toEqual(before);
    });

    it("accepts a single-use body stamped with a high s once; its low-s twin and itself again are replays", async () => {
      const body = mfaBody("OPERATION_TYPE_REQUEST_MULTI_FACTOR", { multiFactorType: "totp" });
      const high = twinOf(stampHeader(body));
      expect(hasHighS(high)).toBe(true);
      const first = await post(
        h.url,
        "/signer/v1/auth-request-multi-factor",
        wrap(body, WHOAMI_URL, high),
        KEY,
      );
      expect(first.status).toBe(200);
      expect(first.json.multiFactorTotpUrl).toBeDefined();
      const before = await state();
      for (const [name, header] of [
        ["the low-s twin", twinOf(high)],
        ["the high-s stamp again", high],
      ] as const) {
        const r = await post(
          h.url,
          "/signer/v1/auth-request-multi-factor",
          wrap(body, WHOAMI_URL, header),
          KEY,
        );
        expect({ name, status: r.status, code: r.json.code }).toEqual({
          name,
          status: 401,
          code: "STAMP_REPLAYED",
        });
      }
      expect(await state()).toEqual(before);
    });

    it("refuses every other encoding on the key-management API and on a signature; nothing runs twice", async () => {
      const body = submitBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {
        signWith: user.address,
        payload: hashMessage("F1"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
      const header = stampHeader(body);
      const first = await post(h.url, "/public/v1/submit/sign_raw_payload", body, { "X-Stamp": header });
      expect(first.status).toBe(200);
      const before = await state();
      for (const [name, alias] of aliases(header)) {
        const direct = await post(h.url, "/public/v1/submit/sign_raw_payload", body, { "X-Stamp": alias });
        expect({ name, status: direct.status, code: direct.json.code }).toEqual({
          name,
          status: 401,
          code: "STAMP_NOT_CANONICAL",
        });
        const wrapped = await post(
          h.url,
          "/signer/v1/sign-payload",
          wrap(body, "https://x/public/v1/submit/sign_raw_payload", alias),
          KEY,
        );
        expect({ name, status: wrapped.status, code: wrapped.json.code }).toEqual({
          name,
          status: 401,
          code: "STAMP_NOT_CANONICAL",
        });
      }
      // The twin signature is a valid stamp of the same body: submits are idempotent by the body, so it
      // answers the activity the first made and signs nothing more, direct or through the signer API.
      const activity = first.json.activity as { id: string };
      const twinDirect = await post(h.url, "/public/v1/submit/sign_raw_payload", body, {
        "X-Stamp": twinOf(header),
      });
      expect({ status: twinDirect.status, id: (twinDirect.json.activity as { id: string }).id }).toEqual({
        status: 200,
        id: activity.id,
      });
      const twinWrapped = await post(
        h.url,
        "/signer/v1/sign-payload",
        wrap(body, "https://x/public/v1/submit/sign_raw_payload", twinOf(header)),
        KEY,
      );
      expect(twinWrapped.status).toBe(200);
      expect(await state()).toEqual(before);
    });
  });

  describe("F1 for passkeys: the ledger holds the body, whatever the assertion's encoding", () => {
    it("refuses a passkey lookup replayed re-spaced, mirrored or padded", async () => {
      const auth = new SoftAuthenticator("app.test", "http://app.test");
      const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
      const signup = await post(
        h.url,
        "/signer/v1/signup",
        { passkey: { challenge, attestation: auth.attest(challenge) } },
        KEY,
      );
      expect(signup.status).toBe(200);
      const rootOrgId = (await post(h.url, "/signer/v1/signer-config", {}, KEY)).json.rootOrgId as string;
      const body = JSON.stringify({
        type: "QUERY_TYPE_WHOAMI",
        organizationId: rootOrgId,
        timestampMs: ts(),
      });
      const header = auth.stamp(body);
      const send = (value: string) =>
        post(
          h.url,
          "/signer/v1/whoami",
          {
            stampedRequest: {
              body,
              url: WHOAMI_URL,
              stamp: { stampHeaderName: "X-Stamp-WebAuthn", stampHeaderValue: value },
            },
          },
          KEY,
        );
      expect((await send(header)).status).toBe(200);
      const parsed = JSON.parse(header) as { signature: string };
      const sig = p256.Signature.fromBytes(Buffer.from(parsed.signature, "base64url"), "der");
      const mirrored = Buffer.from(new p256.Signature(sig.r, N - sig.s).toBytes("der")).toString("base64url");
      const variants: [string, string, string][] = [
        ["re-spaced", header.replace(/,"/g, `, "`).replace(/":"/g, `": "`), "STAMP_REPLAYED"],
        ["mirrored signature", JSON.stringify({ ...parsed, signature: mirrored }), "STAMP_REPLAYED"],
        [
          "padded signature",
          JSON.stringify({ ...parsed, signature: `${parsed.signature}=` }),
          "STAMP_REPLAYED",
        ],
      ];
      for (const [name, value, code] of variants) {
        const r = await send(value);
        expect({ name, status: r.status, code: r.json.code }).toEqual({ name, status: 401, code });
      }
      // A new body, its assertion padded: base64url without padding is the one encoding accepted.
      const fresh = JSON.stringify({
        type: "QUERY_TYPE_WHOAMI",
        organizationId: rootOrgId,
        timestampMs: ts(),
      });
      const padded = JSON.parse(auth.stamp(fresh)) as { signature: string };
      const r = await post(
        h.url,
        "/signer/v1/whoami",
        {
          stampedRequest: {
            body: fresh,
            url: WHOAMI_URL,
            stamp: {
              stampHeaderName: "X-Stamp-WebAuthn",
              stampHeaderValue: JSON.stringify({ ...padded, signature: `${padded.signature}=` }),
            },
          },
        },
        KEY,
      );
      expect({ status: r.status, code: r.json.code }).toEqual({ status: 401, code: "INVALID_STAMP" });
    });
  });

  /** A second session of the user (email sign-in again). */
  async function newSessionKey(): Promise<Uint8Array> {
    const t = targetKey();
    const rw = submitBody("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", { targetPublicKey: t.publicKey });
    const r = await post(h.url, "/public/v1/submit/create_read_write_session", rw, {
      "X-Stamp": stampHeader(rw),
    });
    expect(r.status).toBe(200);
    const result = (
      r.json.activity as { result: { createReadWriteSessionResultV2: { credentialBundle: string } } }
    ).result.createReadWriteSessionResultV2;
    return t.open(result.credentialBundle);
  }

  describe("F2: a body signed for one operation is refused by every other", () => {
    it("refuses the exact body and stamp of a signature at auth-request-multi-factor, whatever the url", async () => {
      const body = submitBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {
        signWith: user.address,
        payload: hashMessage("F2"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
      const header = stampHeader(body);
      expect(
        (await post(h.url, "/public/v1/submit/sign_raw_payload", body, { "X-Stamp": header })).status,
      ).toBe(200);
      const before = await state();
      for (const url of [
        WHOAMI_URL,
        "https://evil.test/anything",
        "https://x/public/v1/submit/sign_raw_payload",
      ]) {
        const r = await post(
          h.url,
          "/signer/v1/auth-request-multi-factor",
          { ...wrap(body, url, header), multiFactorType: "totp" },
          KEY,
        );
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.json.multiFactorTotpUrl).toBeUndefined();
      }
      expect(await state()).toEqual(before);
    });

    it("moves every body the client signs to every other stamped route: each answers 4xx and changes nothing", async () => {
      const second = targetKey();
      const factorId = "00000000-0000-4000-8000-000000000000";
      const keyId = "00000000-0000-4000-8000-000000000001";
      // One body per operation, shaped as @latchkey/core makes it.
      const bodies: Record<string, string> = {
        whoami: JSON.stringify({ type: "QUERY_TYPE_WHOAMI", organizationId: user.orgId }),
        listAuthMethods: JSON.stringify({ type: "QUERY_TYPE_LIST_AUTH_METHODS", organizationId: user.orgId }),
        listMultiFactors: JSON.stringify({
          type: "QUERY_TYPE_LIST_MULTI_FACTORS",
          organizationId: user.orgId,
        }),
        get_user: JSON.stringify({
          type: "QUERY_TYPE_GET_USER",
          organizationId: user.orgId,
          userId: user.userId,
        }),
        get_api_keys: JSON.stringify({
          type: "QUERY_TYPE_GET_API_KEYS",
          organizationId: user.orgId,
          userId: user.userId,
        }),
        get_authenticators: JSON.stringify({
          type: "QUERY_TYPE_GET_AUTHENTICATORS",
          organizationId: user.orgId,
          userId: user.userId,
        }),
        list_wallets: JSON.stringify({ type: "QUERY_TYPE_LIST_WALLETS", organizationId: user.orgId }),
        requestMfa: mfaBody("OPERATION_TYPE_REQUEST_MULTI_FACTOR", { multiFactorType: "totp" }),
        verifyMfa: mfaBody("OPERATION_TYPE_VERIFY_MULTI_FACTOR", {
          multiFactorId: factorId,
          multiFactorCode: "123456",
        }),
        deleteMfa: mfaBody("OPERATION_TYPE_DELETE_MULTI_FACTORS", { multiFactorIds: [factorId] }),
        sign_raw_payload: submitBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {
          signWith: user.address,
          payload: hashMessage("moved"),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        }),
        create_read_write_session: submitBody("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", {
          targetPublicKey: second.publicKey,
        }),
        create_api_keys: submitBody("ACTIVITY_TYPE_CREATE_API_KEYS_V2", {
          userId: user.userId,
          apiKeys: [
            {
              apiKeyName: "moved",
              publicKey: toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), true)),
            },
          ],
        }),
        delete_api_keys: submitBody("ACTIVITY_TYPE_DELETE_API_KEYS", {
          userId: user.userId,
          apiKeyIds: [keyId],
        }),
        delete_authenticators: submitBody("ACTIVITY_TYPE_DELETE_AUTHENTICATORS", {
          userId: user.userId,
          authenticatorIds: [keyId],
        }),
        delete_oauth_providers: submitBody("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", {
          userId: user.userId,
          providerIds: [keyId],
        }),
        create_oauth_providers: submitBody("ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS", {
          userId: user.userId,
          oauthProviders: [{ providerName: "google", oidcToken: "x".repeat(40) }],
        }),
      };
      // Every stamped route, with the operation it serves and (signer API) the url it expects: the url
      // travels unsigned, so the attacker sets it to whatever the route wants.
      const signerRoutes: [string, string, string, Body][] = [
        ["whoami", "/signer/v1/whoami", WHOAMI_URL, {}],
        ["listAuthMethods", "/signer/v1/list-auth-methods", WHOAMI_URL, { suborgId: user.orgId }],
        ["listMultiFactors", "/signer/v1/auth-list-multi-factors", WHOAMI_URL, {}],
        ["requestMfa", "/signer/v1/auth-request-multi-factor", WHOAMI_URL, {}],
        ["verifyMfa", "/signer/v1/auth-verify-multi-factor", WHOAMI_URL, {}],
        ["deleteMfa", "/signer/v1/auth-delete-multi-factors", WHOAMI_URL, {}],
        ["sign_raw_payload", "/signer/v1/sign-payload", "https://x/public/v1/submit/sign_raw_payload", {}],
        [
          "create_oauth_providers",
          "/signer/v1/add-oauth-provider",
          "https://x/public/v1/submit/create_oauth_providers",
          {},
        ],
        [
          "delete_oauth_providers",
          "/signer/v1/remove-oauth-provider",
          "https://x/public/v1/submit/delete_oauth_providers",
          {},
        ],
      ];
      const queries = ["whoami", "get_user", "get_api_keys", "get_authenticators", "list_wallets"];
      const queryExtra = ["list_wallet_accounts", "get_activity"];
      const submits = [
        "sign_raw_payload",
        "create_read_write_session",
        "create_api_keys",
        "delete_api_keys",
        "delete_authenticators",
        "create_oauth_providers",
        "delete_oauth_providers",
        "sign_raw_payloads",
      ];
      const before = await state();
      let tried = 0;
      for (const [op, body] of Object.entries(bodies)) {
        const header = stampHeader(body);
        for (const [routeOp, path, url, extra] of signerRoutes) {
          if (routeOp === op) continue;
          const r = await post(h.url, path, { ...extra, ...wrap(body, url, header) }, KEY);
          expect({ op, path, status: r.status < 500 && r.status >= 400 }).toEqual({ op, path, status: true });
          tried++;
        }
        for (const q of [...queries, ...queryExtra]) {
          if (q === op) continue;
          const r = await post(h.url, `/public/v1/query/${q}`, body, { "X-Stamp": header });
          expect({ op, q, status: r.status < 500 && r.status >= 400 }).toEqual({ op, q, status: true });
          tried++;
        }
        for (const s of submits) {
          if (s === op) continue;
          const r = await post(h.url, `/public/v1/submit/${s}`, body, { "X-Stamp": header });
          expect({ op, s, status: r.status < 500 && r.status >= 400 }).toEqual({ op, s, status: true });
          tried++;
        }
      }
      expect(tried).toBeGreaterThan(350);
      expect(await state()).toEqual(before);
    });

    it("still serves each body at its own route (the check above refuses for the right reason)", async () => {
      const r = await post(
        h.url,
        "/signer/v1/list-auth-methods",
        {
          suborgId: user.orgId,
          ...wrap(
            JSON.stringify({ type: "QUERY_TYPE_LIST_AUTH_METHODS", organizationId: user.orgId }),
            WHOAMI_URL,
          ),
        },
        KEY,
      );
      expect(r.status).toBe(200);
      const moved = await post(
        h.url,
        "/signer/v1/auth-list-multi-factors",
        wrap(
          JSON.stringify({ type: "QUERY_TYPE_LIST_AUTH_METHODS", organizationId: user.orgId }),
          WHOAMI_URL,
        ),
        KEY,
      );
      expect({ status: moved.status, code: moved.json.code }).toEqual({
        status: 400,
        code: "STAMP_WRONG_OPERATION",
      });
    });

    it("refuses outer MFA parameters that differ from the signed ones", async () => {
      const body = mfaBody("OPERATION_TYPE_DELETE_MULTI_FACTORS", { multiFactorIds: ["a"] });
      const r = await post(
        h.url,
        "/signer/v1/auth-delete-multi-factors",
        { ...wrap(body, WHOAMI_URL), multiFactorIds: ["b"] },
        KEY,
      );
      expect({ status: r.status, code: r.json.code }).toEqual({ status: 400, code: "STAMP_WRONG_OPERATION" });
    });
  });

  describe("F3: control characters are refused at the boundary", () => {
    const NUL = "\u0000";

    it("answers 400 INVALID_CHARACTERS for a NUL in each string field, public or stamped, and writes nothing", async () => {
      const t = targetKey();
      const signed = (path: string, body: Body, url = WHOAMI_URL) => {
        const text = JSON.stringify(body);
        return { path, body: wrap(text, url) };
      };
      const withNul = (s: string) => `${s}${NUL}`;
      const cases: { name: string; path: string; body: unknown; headers?: Record<string, string> }[] = [
        { name: "lookup email", path: "/signer/v1/lookup", body: { email: withNul("a@example.com") } },
        {
          name: "signup email",
          path: "/signer/v1/signup",
          body: { email: withNul("new@example.com"), targetPublicKey: t.publicKey },
        },
        {
          name: "signup redirectParams",
          path: "/signer/v1/signup",
          body: { email: "new2@example.com", targetPublicKey: t.publicKey, redirectParams: withNul("a=b") },
        },
        {
          name: "otp otpId",
          path: "/signer/v1/otp",
          body: { orgId: user.orgId, otpId: withNul("x"), otpCode: "123456", targetPublicKey: t.publicKey },
        },
        {
          name: "otp orgId",
          path: "/signer/v1/otp",
          body: { orgId: withNul(user.orgId), otpId: "x", otpCode: "123456", targetPublicKey: t.publicKey },
        },
        {
          name: "validate multiFactorId",
          path: "/signer/v1/auth-validate-multi-factors",
          body: {
            encryptedPayload: "v1.a.b",
            multiFactors: [{ multiFactorId: withNul("f"), multiFactorCode: "123456" }],
          },
        },
        {
          name: "validate encryptedPayload",
          path: "/signer/v1/auth-validate-multi-factors",
          body: {
            encryptedPayload: withNul("v1.a.b"),
            multiFactors: [{ multiFactorId: "f", multiFactorCode: "123456" }],
          },
        },
        {
          name: "list-auth-methods suborgId",
          path: "/signer/v1/list-auth-methods",
          body: {
            suborgId: withNul(user.orgId),
            stampedRequest: {
              body: "{}",
              url: WHOAMI_URL,
              stamp: { stampHeaderName: "X-Stamp", stampHeaderValue: "x" },
            },
          },
        },
        {
          name: "stampHeaderName",
          path: "/signer/v1/whoami",
          body: {
            stampedRequest: {
              body: "{}",
              url: WHOAMI_URL,
              stamp: { stampHeaderName: withNul("X-Stamp"), stampHeaderValue: "x" },
            },
          },
        },
        {
          name: "a key of the body",
          path: "/signer/v1/lookup",
          body: { [withNul("email")]: "a@example.com" },
        },
      ];
      const stampedCases = [
        signed(
          "/signer/v1/sign-payload",
          {
            type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            timestampMs: ts(),
            organizationId: user.orgId,
            parameters: {
              signWith: withNul(user.address),
              payload: "00",
              encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
              hashFunction: "HASH_FUNCTION_NO_OP",
            },
          },
          "https://x/public/v1/submit/sign_raw_payload",
        ),
        signed("/signer/v1/auth-verify-multi-factor", {
          type: "OPERATION_TYPE_VERIFY_MULTI_FACTOR",
          timestampMs: ts(),
          organizationId: user.orgId,
          parameters: { multiFactorId: withNul("f"), multiFactorCode: "123456" },
        }),
        signed("/signer/v1/auth-delete-multi-factors", {
          type: "OPERATION_TYPE_DELETE_MULTI_FACTORS",
          timestampMs: ts(),
          organizationId: user.orgId,
          parameters: { multiFactorIds: [withNul("f")] },
        }),
        signed("/signer/v1/whoami", { type: "QUERY_TYPE_WHOAMI", organizationId: withNul(user.orgId) }),
      ];
      for (const c of stampedCases) cases.push({ name: `stamped ${c.path}`, path: c.path, body: c.body });
      // The key-management API: the stamp is in the header, the body is the signed text.
      const publicCases: [string, Body][] = [
        [
          "query/list_wallet_accounts",
          { type: "QUERY_TYPE_LIST_WALLET_ACCOUNTS", organizationId: user.orgId, walletId: withNul("w") },
        ],
        ["query/get_activity", { organizationId: user.orgId, activityId: withNul("a") }],
        ["query/get_user", { organizationId: user.orgId, userId: withNul(user.userId) }],
        [
          "submit/create_api_keys",
          {
            type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
            timestampMs: ts(),
            organizationId: user.orgId,
            parameters: {
              userId: user.userId,
              apiKeys: [
                {
                  apiKeyName: withNul("k"),
                  publicKey: toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), true)),
                },
              ],
            },
          },
        ],
        [
          "submit/delete_api_keys",
          {
            type: "ACTIVITY_TYPE_DELETE_API_KEYS",
            timestampMs: ts(),
            organizationId: user.orgId,
            parameters: { userId: user.userId, apiKeyIds: [withNul("k")] },
          },
        ],
        [
          "submit/sign_raw_payload",
          {
            type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            timestampMs: ts(),
            organizationId: user.orgId,
            parameters: {
              signWith: withNul(user.address),
              payload: "00",
              encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
              hashFunction: "HASH_FUNCTION_NO_OP",
            },
          },
        ],
      ];
      const before = await state();
      for (const c of cases) {
        const r = await post(h.url, c.path, c.body, { ...KEY, ...c.headers });
        expect({ name: c.name, status: r.status, code: r.json.code }).toEqual({
          name: c.name,
          status: 400,
          code: "INVALID_CHARACTERS",
        });
      }
      for (const [path, body] of publicCases) {
        const text = JSON.stringify(body);
        const r = await post(h.url, `/public/v1/${path}`, text, { "X-Stamp": stampHeader(text) });
        expect({ path, status: r.status, code: r.json.code }).toEqual({
          path,
          status: 400,
          code: "INVALID_CHARACTERS",
        });
      }
      expect(await state()).toEqual(before);
    });

    it("refuses other control characters in ids, and NUL in the OAuth state and the frame's appId", async () => {
      const r = await post(
        h.url,
        "/signer/v1/otp",
        { orgId: user.orgId, otpId: "abc\u0001", otpCode: "123456", targetPublicKey: targetKey().publicKey },
        KEY,
      );
      expect({ status: r.status, code: r.json.code }).toEqual({ status: 400, code: "INVALID_CHARACTERS" });
      const state = Buffer.from(
        JSON.stringify({
          authProviderId: "google",
          requestKey: `k${NUL}`,
          targetPublicKey: targetKey().publicKey,
          mode: "redirect",
          redirectUrl: "http://app.test/welcome",
        }),
      ).toString("base64url");
      const callback = await fetch(`${h.url}/oauth/callback?state=${state}&code=x`);
      expect(callback.status).toBe(400);
      expect(await callback.text()).toContain("This sign-in link is invalid");
      const frame = await fetch(`${h.url}/frames/auth?appId=a%00b`);
      expect(frame.status).toBe(400);
    });
  });
});
