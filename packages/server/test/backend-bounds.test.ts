/**
 * Input that used to end in a 5xx answers a 4xx with a stable code: JSON nested deeper than 32 levels
 * (a backend sign_typed_data message 10,000 levels deep, any endpoint's body, an EIP-712 payload in a
 * signer API sign_raw_payload) is JSON_TOO_DEEP before anything recursive reads it; a backend
 * send_user_operation on a chain the service does not send on is CHAIN_NOT_SUPPORTED (400), not 503.
 * On SQLite (SCENARIO_DATABASES in helpers.ts).
 */
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmailUser,
  type Harness,
  post,
  SCENARIO_DATABASES,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
} from "./helpers";

const SERVER_KEY = generateP256PrivateKey();
const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

/** `{"a":{"a":…{"a":1}…}}`, `levels` objects deep, written as text (no recursion on this side either). */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${"}".repeat(levels - 1)}`;

describe.each(SCENARIO_DATABASES)("bounded input (%s)", (kind) => {
  let h: Harness;
  let user: EmailUser;

  beforeAll(async () => {
    h = await startHarness(kind, {
      apps: [
        {
          ...TEST_APP,
          serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
        },
      ],
    });
    user = await signUpByEmail(h, `bounds-${kind}@example.com`, KEY);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  /** A backend API call stamped by the app's server key, its body given as text. */
  const backend = (path: string, text: string) => {
    const stamp = stampWithPrivateKey(text, SERVER_KEY);
    return post(h.url, `/backend/v1/${path}`, text, { [stamp.stampHeaderName]: stamp.stampHeaderValue });
  };
  const head = (type: string) =>
    `"type":"${type}","appId":"${TEST_APP.id}","timestampMs":"${Date.now()}","userId":"${user.userId}","grantId":"grant-1"`;

  it("sign_typed_data with a message 10,000 levels deep is 400 JSON_TOO_DEEP", async () => {
    const typedData = `{"types":{"M":[{"name":"a","type":"string"}]},"primaryType":"M","message":${nested(10_000)}}`;
    const r = await backend(
      "sign_typed_data",
      `{${head("BACKEND_SIGN_TYPED_DATA")},"typedData":${typedData}}`,
    );
    expect([r.status, r.json.code, r.json.error]).toEqual([
      400,
      "JSON_TOO_DEEP",
      "The request body nests arrays and objects deeper than 32 levels",
    ]);
  });

  it("bounds every JSON body at 32 levels; brackets inside strings do not count", async () => {
    const deep = await post(h.url, "/signer/v1/lookup", `{"email":${nested(32)}}`, KEY);
    expect([deep.status, deep.json.code]).toEqual([400, "JSON_TOO_DEEP"]);
    const arrays = await post(h.url, "/signer/v1/lookup", `${"[".repeat(5000)}${"]".repeat(5000)}`, KEY);
    expect([arrays.status, arrays.json.code]).toEqual([400, "JSON_TOO_DEEP"]);
    // 31 levels and a string full of brackets pass the bound (and fail the schema, as before).
    const within = await post(h.url, "/signer/v1/lookup", `{"email":${nested(31)}}`, KEY);
    expect([within.status, within.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const brackets = await post(
      h.url,
      "/signer/v1/lookup",
      { email: `${"[{".repeat(100)}@example.com` },
      KEY,
    );
    expect(brackets.json.code).not.toBe("JSON_TOO_DEEP");
  });

  it("an EIP-712 payload of sign_raw_payload nested too deep is 400 JSON_TOO_DEEP", async () => {
    const payload = `{"types":{"EIP712Domain":[],"M":[{"name":"a","type":"string"}]},"primaryType":"M","domain":{},"message":${nested(2000)}}`;
    const body = {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      parameters: {
        signWith: user.address,
        payload,
        encoding: "PAYLOAD_ENCODING_EIP712",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      },
    };
    const r = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped("/public/v1/submit/sign_raw_payload", body, user.sessionKey),
      KEY,
    );
    expect([r.status, r.json.code, r.json.error]).toEqual([
      400,
      "JSON_TOO_DEEP",
      "The payload nests arrays and objects deeper than 32 levels",
    ]);
  });

  it("send_user_operation on a chain the service does not send on is 400 CHAIN_NOT_SUPPORTED", async () => {
    const calls = `[{"to":"0x000000000000000000000000000000000000dEaD","value":"1"}]`;
    const r = await backend(
      "send_user_operation",
      `{${head("BACKEND_SEND_USER_OPERATION")},"chainId":424242,"calls":${calls}}`,
    );
    expect([r.status, r.json.code, r.json.error]).toEqual([
      400,
      "CHAIN_NOT_SUPPORTED",
      "This service sends no user operations on chain 424242: it needs the chain with a bundlerUrl in its chains",
    ]);
  });
});
