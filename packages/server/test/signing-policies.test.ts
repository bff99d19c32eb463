/**
 * Signing policies (DESIGN §9): the service reads a transaction (`sign_transaction`), asks the app's
 * policy, and signs it, refuses it (REJECTED) or holds it (CONSENSUS_NEEDED) until an app admin key
 * approves (approve_activity: signed once, COMPLETED) or rejects it (reject_activity: REJECTED). Raw
 * payloads follow `rawPayloads`, on the key-management API and /v1/sign-payload alike. SQLite and
 * PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeStamp,
  encodeStamp,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { p256 } from "@noble/curves/nist";
import {
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  parseEther,
  parseGwei,
  recoverAddress,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerializable,
  type TypedDataDefinition,
  verifyMessage,
  verifyTypedData,
  toHex as viemToHex,
} from "viem";
import { entryPoint08Address, getUserOperationTypedData } from "viem/account-abstraction";
import { hashAuthorization } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../src/config";
import { listHeldActivities } from "../src/keyManagement/policies/adminCli";
import { simpleAccountAddress } from "../src/keyManagement/policies/ownAccounts";
import {
  type EmailUser,
  type Harness,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
} from "./helpers";
import { latchkey } from "./helpers/latchkey";

const BURN = "0x000000000000000000000000000000000000dEaD";
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const ADMIN_KEY = generateP256PrivateKey();
const OTHER_ADMIN_KEY = generateP256PrivateKey();
const adminPublic = (k: Uint8Array) => toHex(p256PublicKeyFromPrivate(k, true));

const POLICY_APP = {
  id: "policy-app",
  name: "Policy App",
  apiKeys: ["lk_policy_key_0123456789abcdef"],
  allowedOrigins: ["http://policy.test"],
  signingPolicy: {
    rules: [
      { id: "no-burn", effect: "deny", contracts: [BURN], description: "Nothing goes to the burn address" },
      { id: "large", effect: "needs_approval", valueAboveWei: parseEther("1").toString() },
      { id: "huge", effect: "deny", valueAboveWei: parseEther("100").toString() },
    ],
    adminKeys: [{ name: "ops", publicKey: adminPublic(ADMIN_KEY) }],
  },
} satisfies AppConfig;
const RAW_APP = {
  id: "raw-app",
  name: "Raw App",
  apiKeys: ["lk_raw_key_0123456789abcdef0"],
  allowedOrigins: ["http://raw.test"],
  signingPolicy: {
    rawPayloads: "needs_approval",
    rules: [{ id: "mainnet-only", effect: "allow", chainIds: [1] }],
    default: "deny",
    adminKeys: [{ name: "other", publicKey: adminPublic(OTHER_ADMIN_KEY) }],
  },
} satisfies AppConfig;
const DENY_RAW_APP = {
  id: "deny-raw-app",
  name: "Deny Raw App",
  apiKeys: ["lk_denyraw_key_0123456789abc"],
  allowedOrigins: ["http://denyraw.test"],
  signingPolicy: { rawPayloads: "deny" },
} satisfies AppConfig;

/** Rules, no admin keys, no rawPayloads: bare hashes are refused by default (W3). */
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const OTHER_TOKEN = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const BAD_SPENDER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const SIMPLE_7702 = "0xe6Cae83BdE06E4c305530e199D7217f42808555B";
const W3_APP = {
  id: "w3-app",
  name: "W3 App",
  apiKeys: ["lk_w3app_key_0123456789abcdef"],
  allowedOrigins: ["http://w3.test"],
  signingPolicy: {
    rules: [
      { id: "no-burn", effect: "deny", contracts: [BURN] },
      { id: "no-token-approve", effect: "deny", contracts: [TOKEN], selectors: ["0x095ea7b3"] },
      { id: "no-bad-spender", effect: "deny", spenders: [BAD_SPENDER] },
    ],
  },
} satisfies AppConfig;
/** The same rules with raw payloads said to be allowed: EIP-7702 delegates are still checked. */
const RAW_ALLOWED_APP = {
  id: "raw-allowed-app",
  name: "Raw Allowed App",
  apiKeys: ["lk_rawallow_key_0123456789ab"],
  allowedOrigins: ["http://rawallowed.test"],
  signingPolicy: { rawPayloads: "allow", rules: [{ id: "no-burn", effect: "deny", contracts: [BURN] }] },
} satisfies AppConfig;

const keyOf = (app: { apiKeys: string[] }) => ({ authorization: `Bearer ${app.apiKeys[0]}` });

function tx(over: Partial<TransactionSerializable> = {}): Hex {
  return serializeTransaction({
    type: "eip1559",
    chainId: 1,
    nonce: 0,
    to: FRIEND,
    value: parseEther("0.01"),
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
    ...over,
  } as TransactionSerializable);
}

describe.each(["sqlite", "postgres"] as const)("signing policies (%s)", (kind) => {
  let h: Harness;
  let user: EmailUser;
  let appOrg: string;
  beforeAll(async () => {
    h = await startHarness(kind, {
      apps: [TEST_APP, POLICY_APP, RAW_APP, DENY_RAW_APP, W3_APP, RAW_ALLOWED_APP],
    });
    user = await signUpByEmail(h, unique("policy"), keyOf(POLICY_APP));
    appOrg = (await h.service.ctx.apps.byId(POLICY_APP.id))?.orgId as string;
  });
  afterAll(async () => {
    await h?.close();
  });

  function unique(name: string) {
    return `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  }

  /** A stamped submit straight to the key-management API. */
  function submit(path: string, body: object, key: Uint8Array, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    const stamp = stampWithPrivateKey(text, key);
    return post(h.url, `/public/v1/submit/${path}`, text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
      ...headers,
    });
  }
  function signTx(u: EmailUser, unsignedTransaction: string, extra: Record<string, unknown> = {}) {
    return submit(
      "sign_transaction",
      {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        timestampMs: String(Date.now()),
        organizationId: u.orgId,
        parameters: { signWith: u.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM", ...extra },
      },
      u.sessionKey,
    );
  }
  function decide(
    decision: "approve" | "reject",
    parameters: Record<string, unknown>,
    key = ADMIN_KEY,
    over: Record<string, unknown> = {},
  ) {
    return submit(
      `${decision}_activity`,
      {
        type: decision === "approve" ? "ACTIVITY_TYPE_APPROVE_ACTIVITY" : "ACTIVITY_TYPE_REJECT_ACTIVITY",
        timestampMs: String(Date.now()),
        organizationId: appOrg,
        parameters,
        ...over,
      },
      key,
    );
  }
  async function getActivity(u: EmailUser, activityId: string) {
    const text = JSON.stringify({ type: "QUERY_TYPE_GET_ACTIVITY", organizationId: u.orgId, activityId });
    const stamp = stampWithPrivateKey(text, u.sessionKey);
    const r = await post(h.url, "/public/v1/query/get_activity", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    return r.json.activity as Activity;
  }
  type Activity = {
    id: string;
    status: string;
    fingerprint: string;
    result: { signTransactionResult?: { signedTransaction: Hex } };
    failure?: { code: string; message: string };
  };
  const activityOf = (r: { json: Record<string, unknown> }) => r.json.activity as Activity;

  it("signs a transaction the policy allows; the signature recovers to the user's address", async () => {
    const r = await signTx(user, tx());
    expect([r.status, activityOf(r).status]).toEqual([200, "ACTIVITY_STATUS_COMPLETED"]);
    const signed = activityOf(r).result.signTransactionResult?.signedTransaction as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(user.address);
    // Legacy transactions keep their EIP-155 chain id.
    const legacy = await signTx(
      user,
      serializeTransaction({
        type: "legacy",
        chainId: 31337,
        nonce: 1,
        to: FRIEND,
        gas: 21000n,
        gasPrice: 1n,
      }),
    );
    const signedLegacy = activityOf(legacy).result.signTransactionResult?.signedTransaction as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: signedLegacy as never })).toBe(
      user.address,
    );
  });

  it("refuses a denied transaction: REJECTED naming the rule, idempotent, audited, no signature", async () => {
    const body = tx({ to: BURN });
    const r = await signTx(user, body);
    expect(r.status).toBe(200);
    const activity = activityOf(r);
    expect(activity.status).toBe("ACTIVITY_STATUS_REJECTED");
    expect(activity.failure).toEqual({
      code: "POLICY_DENIED",
      message: 'Refused by signing policy rule "no-burn": Nothing goes to the burn address',
    });
    expect(activity.result).toEqual({});
    expect((await getActivity(user, activity.id)).status).toBe("ACTIVITY_STATUS_REJECTED");
    // Deny beats needs_approval: above the approval threshold, to the burn address, still refused.
    const both = activityOf(await signTx(user, tx({ to: BURN, value: parseEther("2") })));
    expect([both.status, both.failure?.message]).toEqual([
      "ACTIVITY_STATUS_REJECTED",
      'Refused by signing policy rule "no-burn": Nothing goes to the burn address',
    ]);
    const huge = activityOf(await signTx(user, tx({ value: parseEther("101") })));
    expect(huge.failure?.message).toBe('Refused by signing policy rule "huge"');
    const audit = await h.service.ctx.db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("user_id", "=", user.userId)
      .where("event", "=", "signing.rejected")
      .execute();
    expect(audit.map((a) => JSON.parse(a.details ?? "{}").ruleId)).toContain("no-burn");
  });

  it("holds a large transaction until an admin approves it; it is signed once", async () => {
    const r = await signTx(user, tx({ value: parseEther("2"), nonce: 5 }));
    const held = activityOf(r);
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(held.failure?.message).toBe('Held by signing policy rule "large" until an app admin approves it');
    expect(held.result).toEqual({});
    // Two admins (or two instances) approving at once: one signs, the other is told it is decided.
    const [a, b] = await Promise.all([
      decide("approve", { activityId: held.id }),
      decide("approve", { fingerprint: held.fingerprint }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const won = a.status === 200 ? a : b;
    const lost = a.status === 200 ? b : a;
    expect(activityOf(won).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((activityOf(won).result as unknown as Record<string, unknown>).approveActivityResult).toEqual({
      activityId: held.id,
      status: "ACTIVITY_STATUS_COMPLETED",
      approvals: { approved: 1, required: 1, duplicate: false },
    });
    expect(lost.json.code).toBe("ACTIVITY_NOT_PENDING");
    const done = await getActivity(user, held.id);
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.failure).toBeUndefined();
    const signed = done.result.signTransactionResult?.signedTransaction as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(user.address);
    // The same approval body again answers the activity it recorded (idempotent), signing nothing more.
    const events = await h.service.ctx.db
      .selectFrom("audit_log")
      .select("event")
      .where("event", "=", "signing.approved")
      .where("user_id", "=", user.userId)
      .execute();
    expect(events).toHaveLength(1);
    // Rejecting it afterwards is refused: it is no longer waiting.
    const late = await decide("reject", { activityId: held.id });
    expect([late.status, late.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);
  });

  it("an admin's approval stamped with a high s is accepted; its low-s twin decides nothing more", async () => {
    const held = activityOf(await signTx(user, tx({ value: parseEther("2"), nonce: 8 })));
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
      timestampMs: String(Date.now()),
      organizationId: appOrg,
      parameters: { activityId: held.id },
    });
    // The signature's twin (r, n - s): as an unnormalised signer (WebCrypto, node:crypto) may send it.
    const low = decodeStamp(stampWithPrivateKey(body, ADMIN_KEY).stampHeaderValue);
    const sig = p256.Signature.fromBytes(Buffer.from(low.signature, "hex"), "der");
    const twin = new p256.Signature(sig.r, p256.Point.Fn.ORDER - sig.s);
    expect(twin.hasHighS()).toBe(true);
    const high = encodeStamp({ ...low, signature: toHex(twin.toBytes("der")) });
    const approvals = async () =>
      (
        await h.service.ctx.db
          .selectFrom("audit_log")
          .select("details")
          .where("event", "=", "signing.approved")
          .where("user_id", "=", user.userId)
          .execute()
      ).length;
    const before = await approvals();
    const send = (stamp: string) =>
      post(h.url, "/public/v1/submit/approve_activity", body, { "X-Stamp": stamp });
    const first = await send(high);
    expect([first.status, activityOf(first).status]).toEqual([200, "ACTIVITY_STATUS_COMPLETED"]);
    expect((await getActivity(user, held.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    // The low-s twin and the high-s stamp again sign the same body: each answers the decision recorded.
    for (const stamp of [encodeStamp(low), high]) {
      const again = await send(stamp);
      expect([again.status, activityOf(again).id]).toEqual([200, activityOf(first).id]);
    }
    expect(await approvals()).toBe(before + 1);
    // Upper-case hex of the same high-s stamp is still not its encoding.
    const upper = Buffer.from(
      JSON.stringify({ ...decodeStamp(high), signature: decodeStamp(high).signature.toUpperCase() }),
    ).toString("base64url");
    const refused = await send(upper);
    expect([refused.status, refused.json.code]).toEqual([401, "STAMP_NOT_CANONICAL"]);
  });

  it("a rejected held transaction is REJECTED and never signed", async () => {
    const held = activityOf(await signTx(user, tx({ value: parseEther("3"), nonce: 6 })));
    const r = await decide("reject", { fingerprint: held.fingerprint });
    expect(r.status).toBe(200);
    const after = await getActivity(user, held.id);
    expect(after.status).toBe("ACTIVITY_STATUS_REJECTED");
    expect(after.failure).toEqual({
      code: "ACTIVITY_REJECTED",
      message: "An app admin rejected this signature",
    });
    expect(after.result).toEqual({});
    const again = await decide("approve", { activityId: held.id });
    expect([again.status, again.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);
  });

  it("only the app's admin keys decide: a user's session, another app's admin, another organisation", async () => {
    const held = activityOf(await signTx(user, tx({ value: parseEther("4"), nonce: 7 })));
    // The user's own session key, on the approve path.
    const self = await submit(
      "approve_activity",
      {
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        parameters: { activityId: held.id },
      },
      user.sessionKey,
    );
    expect([self.status, self.json.code]).toEqual([403, "FORBIDDEN"]);
    // The approve body presented by a session on another path is bound to its own operation.
    const smuggled = await submit(
      "sign_transaction",
      {
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        parameters: { activityId: held.id },
      },
      user.sessionKey,
    );
    expect([smuggled.status, smuggled.json.code]).toEqual([400, "STAMP_WRONG_OPERATION"]);
    // Another app's admin key, addressed to this app, and to its own app.
    const otherApp = await decide("approve", { activityId: held.id }, OTHER_ADMIN_KEY);
    expect([otherApp.status, otherApp.json.code]).toEqual([403, "FORBIDDEN"]);
    const rawOrg = (await h.service.ctx.apps.byId(RAW_APP.id))?.orgId;
    const ownOrg = await decide("approve", { activityId: held.id }, OTHER_ADMIN_KEY, {
      organizationId: rawOrg,
    });
    expect([ownOrg.status, ownOrg.json.code]).toEqual([404, "ACTIVITY_NOT_FOUND"]);
    // An admin key is not a session: it cannot sign or read for a user.
    const asUser = await submit(
      "sign_transaction",
      {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        timestampMs: String(Date.now()),
        organizationId: appOrg,
        parameters: { signWith: user.address, unsignedTransaction: tx(), type: "TRANSACTION_TYPE_ETHEREUM" },
      },
      ADMIN_KEY,
    );
    expect([asUser.status, asUser.json.code]).toEqual([401, "INVALID_STAMP"]);
    expect((await getActivity(user, held.id)).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  });

  it("answers bad input with a 4xx, never a 500", async () => {
    const cases: [string, Promise<{ status: number; json: Record<string, unknown> }>, number, string][] = [
      ["not hex", signTx(user, "0xzz"), 400, "INVALID_REQUEST"],
      ["odd hex", signTx(user, "0x02f"), 400, "INVALID_REQUEST"],
      ["not a transaction", signTx(user, "0x1234"), 400, "INVALID_REQUEST"],
      [
        "already signed",
        signTx(
          user,
          serializeTransaction(
            { type: "eip1559", chainId: 1, nonce: 0, to: FRIEND, gas: 21000n, maxFeePerGas: 1n },
            { r: keccak256("0x01"), s: keccak256("0x02"), yParity: 0 },
          ),
        ),
        400,
        "INVALID_REQUEST",
      ],
      ["too long", signTx(user, `0x${"00".repeat(30_500)}`), 400, "INVALID_REQUEST"],
      ["above the body limit", signTx(user, `0x${"00".repeat(40_000)}`), 413, "BODY_TOO_LARGE"],
      ["wrong type", signTx(user, tx(), { type: "TRANSACTION_TYPE_SOLANA" }), 400, "INVALID_REQUEST"],
      ["Solana account", signTx(user, tx(), { signWith: user.solanaAddress }), 400, "INVALID_REQUEST"],
      ["someone else's account", signTx(user, tx(), { signWith: FRIEND }), 404, "ACCOUNT_NOT_FOUND"],
      [
        "held for someone else's account",
        signTx(user, tx({ value: parseEther("2"), nonce: 99 }), { signWith: FRIEND }),
        404,
        "ACCOUNT_NOT_FOUND",
      ],
      ["no reference", decide("approve", {}), 400, "INVALID_REQUEST"],
      [
        "both references",
        decide("approve", { activityId: "x", fingerprint: "0".repeat(64) }),
        400,
        "INVALID_REQUEST",
      ],
      ["bad fingerprint", decide("reject", { fingerprint: "XYZ" }), 400, "INVALID_REQUEST"],
      ["unknown field", decide("reject", { activityId: "a", extra: 1 }), 400, "INVALID_REQUEST"],
      ["unknown activity", decide("approve", { activityId: "nope" }), 404, "ACTIVITY_NOT_FOUND"],
      [
        "reject type on the approve path",
        submit(
          "approve_activity",
          {
            type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
            timestampMs: String(Date.now()),
            organizationId: appOrg,
            parameters: { activityId: "nope" },
          },
          ADMIN_KEY,
        ),
        400,
        "UNSUPPORTED_ACTIVITY",
      ],
      [
        "stale approval",
        decide("approve", { activityId: "nope" }, ADMIN_KEY, { timestampMs: String(Date.now() - 600_000) }),
        401,
        "STAMP_EXPIRED",
      ],
      [
        "no timestamp",
        decide("approve", { activityId: "nope" }, ADMIN_KEY, { timestampMs: undefined }),
        400,
        "INVALID_REQUEST",
      ],
      [
        "passkey header",
        post(h.url, "/public/v1/submit/approve_activity", JSON.stringify({ type: "x" }), {
          "X-Stamp-WebAuthn": "{}",
        }),
        401,
        "INVALID_STAMP",
      ],
      [
        "garbage stamp",
        post(h.url, "/public/v1/submit/reject_activity", JSON.stringify({ type: "x" }), { "X-Stamp": "!!" }),
        401,
        "INVALID_STAMP",
      ],
      [
        "not JSON",
        (async () => {
          const stamp = stampWithPrivateKey("[1]", ADMIN_KEY);
          return post(h.url, "/public/v1/submit/approve_activity", "[1]", {
            [stamp.stampHeaderName]: stamp.stampHeaderValue,
          });
        })(),
        400,
        "INVALID_REQUEST",
      ],
    ];
    for (const [name, pending, status, code] of cases) {
      const r = await pending;
      expect([name, r.status, r.json.code]).toEqual([name, status, code]);
    }
  });

  it("/v1/sign-payload: refused raw payloads answer 403 POLICY_DENIED, held ones 409, with the activity", async () => {
    const denied = await signUpByEmail(h, unique("denyraw"), keyOf(DENY_RAW_APP));
    const digest = keccak256("0x1234").slice(2);
    const path = "/public/v1/submit/sign_raw_payload";
    const body = signBody(denied.orgId, denied.address, digest, "HASH_FUNCTION_NO_OP");
    const r = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(path, body, denied.sessionKey),
      keyOf(DENY_RAW_APP),
    );
    expect([r.status, r.json.code, r.json.error]).toEqual([
      403,
      "POLICY_DENIED",
      "Refused by the signing policy: this app does not sign bare hashes (raw payloads), which no rule can read",
    ]);
    const activityId = (r.json.data as { activityId: string }).activityId;
    expect((await getActivity(denied, activityId)).status).toBe("ACTIVITY_STATUS_REJECTED");
    // Raw payloads are refused on the key-management API too (sign_raw_payloads as well).
    const many = await submit(
      "sign_raw_payloads",
      {
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
        timestampMs: String(Date.now()),
        organizationId: denied.orgId,
        parameters: {
          signWith: denied.address,
          payloads: [digest],
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      },
      denied.sessionKey,
    );
    expect(activityOf(many).status).toBe("ACTIVITY_STATUS_REJECTED");
    // Transactions are still signed there: the switch is about raw payloads only.
    expect(activityOf(await signTx(denied, tx())).status).toBe("ACTIVITY_STATUS_COMPLETED");

    const rawUser = await signUpByEmail(h, unique("rawheld"), keyOf(RAW_APP));
    const heldBody = signBody(rawUser.orgId, rawUser.address, digest, "HASH_FUNCTION_NO_OP");
    const held = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(path, heldBody, rawUser.sessionKey),
      keyOf(RAW_APP),
    );
    expect([held.status, held.json.code]).toEqual([409, "ACTIVITY_CONSENSUS_NEEDED"]);
    const heldId = (held.json.data as { activityId: string }).activityId;
    const rawOrg = (await h.service.ctx.apps.byId(RAW_APP.id))?.orgId;
    const approved = await decide("approve", { activityId: heldId }, OTHER_ADMIN_KEY, {
      organizationId: rawOrg,
    });
    expect(approved.status).toBe(200);
    // Resubmitting the same body now answers the signature.
    const again = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(path, heldBody, rawUser.sessionKey),
      keyOf(RAW_APP),
    );
    expect(again.status).toBe(200);
    expect(again.json.signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
    // default deny: a chain no allow rule names is refused.
    const other = activityOf(await signTx(rawUser, tx({ chainId: 10 })));
    expect(other.failure?.message).toBe("Refused by the signing policy: no rule allows this transaction");
  });

  it("the operator lists what waits and approves it with `latchkey activity approve`", async () => {
    const held = activityOf(await signTx(user, tx({ value: parseEther("5"), nonce: 9 })));
    const listed = await listHeldActivities(h.service.ctx.db, POLICY_APP.id);
    expect(listed.appOrganizationId).toBe(appOrg);
    const entry = listed.held.find((a) => a.activityId === held.id);
    expect(entry).toMatchObject({
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      reason: 'Held by signing policy rule "large" until an app admin approves it',
    });
    const dir = mkdtempSync(join(tmpdir(), "latchkey-admin-"));
    const keyFile = join(dir, "ops.key");
    writeFileSync(keyFile, toHex(ADMIN_KEY), { mode: 0o600 });
    const args = [
      "activity",
      "approve",
      held.id,
      "--org",
      appOrg,
      "--url",
      h.url,
      "--admin-key-file",
      keyFile,
    ];
    // In this process: it must exit 0.
    const { code, stdout, stderr } = await latchkey(args);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`Activity ${held.id}: ACTIVITY_STATUS_COMPLETED\n`);
    expect((await getActivity(user, held.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    // Again: the service says it is decided, and the command fails.
    const rerun = await latchkey(args);
    const again = rerun.code === 0 ? "" : rerun.stderr;
    expect(again).toBe(
      `The service refused (409): Activity ${held.id} is ACTIVITY_STATUS_COMPLETED, not waiting for approval\n`,
    );
  });

  /** sign_raw_payload with any encoding, straight to the key-management API. */
  function signPayload(
    u: EmailUser,
    payload: string,
    encoding: string,
    hashFunction = "HASH_FUNCTION_NOT_APPLICABLE",
    signWith = u.address,
  ) {
    return submit(
      "sign_raw_payload",
      {
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        timestampMs: String(Date.now()),
        organizationId: u.orgId,
        parameters: { signWith, payload, encoding, hashFunction },
      },
      u.sessionKey,
    );
  }
  type Signed = { status: string; failure?: { code: string; message: string }; signature?: Hex };
  /** The activity's status, failure and (completed) signature as r‖s‖v with v 27/28. */
  const signedOf = (r: { json: Record<string, unknown> }): Signed => {
    const a = r.json.activity as {
      status: string;
      failure?: { code: string; message: string };
      result: { signRawPayloadResult?: { r: string; s: string; v: string } };
    };
    if (!a) throw new Error(`no activity: ${JSON.stringify(r.json)}`);
    const sig = a.result.signRawPayloadResult;
    return {
      status: a.status,
      ...(a.failure ? { failure: a.failure } : {}),
      ...(sig
        ? { signature: `0x${sig.r}${sig.s}${(27 + Number.parseInt(sig.v, 16)).toString(16)}` as Hex }
        : {}),
    };
  };
  const json = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  /** Signs EIP-712 typed data as `u` and expects it COMPLETED, with a signature viem verifies for `u`. */
  async function expectTypedDataSigned(u: EmailUser, typedData: TypedDataDefinition) {
    const ok = signedOf(await signPayload(u, json(typedData), "PAYLOAD_ENCODING_EIP712"));
    expect(ok.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      await verifyTypedData({ ...typedData, address: u.address as Hex, signature: ok.signature as Hex }),
    ).toBe(true);
  }

  describe("W3: what a deny rule describes is refused however it is signed", () => {
    let w3: EmailUser;
    beforeAll(async () => {
      w3 = await signUpByEmail(h, unique("w3"), keyOf(W3_APP));
    });

    it("the hash of a denied transaction is not signed: refused (no admin keys) or held (admin keys)", async () => {
      const burn = tx({ to: BURN });
      expect(activityOf(await signTx(w3, burn)).failure?.message).toBe(
        'Refused by signing policy rule "no-burn"',
      );
      const digest = keccak256(burn);
      const bare = signedOf(
        await signPayload(w3, digest, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"),
      );
      expect(bare).toEqual({
        status: "ACTIVITY_STATUS_REJECTED",
        failure: {
          code: "POLICY_DENIED",
          message:
            "Refused by the signing policy: this app does not sign bare hashes (raw payloads), which no rule can read",
        },
      });
      // The unsigned transaction hashed by the service is a bare digest too.
      const hashed = signedOf(
        await signPayload(w3, burn, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"),
      );
      expect(hashed.status).toBe("ACTIVITY_STATUS_REJECTED");
      // An app with admin keys holds it for them instead.
      const held = signedOf(
        await signPayload(user, digest, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"),
      );
      expect([held.status, held.signature]).toEqual(["ACTIVITY_STATUS_CONSENSUS_NEEDED", undefined]);
      const audit = await h.service.ctx.db
        .selectFrom("audit_log")
        .select("details")
        .where("user_id", "=", w3.userId)
        .where("event", "=", "signing.rejected")
        .execute();
      expect(audit.map((a) => JSON.parse(a.details ?? "{}").ruleId)).toContain("rawPayloads");
    });

    it("a permit is decided as its approve call: denied token or spender refused, another signed", async () => {
      const approve = (spender: string) =>
        encodeFunctionData({
          abi: parseAbi(["function approve(address,uint256)"]),
          args: [spender as Hex, 5n],
        });
      expect(
        activityOf(await signTx(w3, tx({ to: TOKEN, data: approve(FRIEND), value: 0n }))).failure?.message,
      ).toBe('Refused by signing policy rule "no-token-approve"');
      const onToken = signedOf(await signPayload(w3, json(permit(TOKEN, FRIEND)), "PAYLOAD_ENCODING_EIP712"));
      expect(onToken).toEqual({
        status: "ACTIVITY_STATUS_REJECTED",
        failure: { code: "POLICY_DENIED", message: 'Refused by signing policy rule "no-token-approve"' },
      });
      const toSpender = signedOf(
        await signPayload(w3, json(permit(OTHER_TOKEN, BAD_SPENDER)), "PAYLOAD_ENCODING_EIP712"),
      );
      expect(toSpender.failure?.message).toBe('Refused by signing policy rule "no-bad-spender"');
      // Its hash, as a bare digest: refused (rawPayloads).
      const { hashTypedData } = await import("viem");
      const bare = signedOf(
        await signPayload(
          w3,
          hashTypedData(permit(TOKEN, FRIEND)),
          "PAYLOAD_ENCODING_HEXADECIMAL",
          "HASH_FUNCTION_NO_OP",
        ),
      );
      expect(bare.status).toBe("ACTIVITY_STATUS_REJECTED");
      // An allowed permit is signed by the user's key, over the EIP-712 hash.
      const allowed = permit(OTHER_TOKEN, FRIEND);
      await expectTypedDataSigned(w3, allowed);
    });

    it("a user operation is decided by its calls; an allowed one is signed as EntryPoint v0.8 hashes it", async () => {
      const calls = parseAbi(["function execute(address target, uint256 value, bytes data)"]);
      const op = (target: string) =>
        getUserOperationTypedData({
          chainId: 31337,
          entryPointAddress: entryPoint08Address,
          userOperation: {
            sender: w3.address as Hex,
            nonce: 0n,
            callData: encodeFunctionData({ abi: calls, args: [target as Hex, 1n, "0x"] }),
            callGasLimit: 100000n,
            verificationGasLimit: 100000n,
            preVerificationGas: 50000n,
            maxFeePerGas: 1n,
            maxPriorityFeePerGas: 1n,
            signature: "0x",
          },
        });
      const denied = signedOf(await signPayload(w3, json(op(BURN)), "PAYLOAD_ENCODING_EIP712"));
      expect([denied.status, denied.failure?.message]).toEqual([
        "ACTIVITY_STATUS_REJECTED",
        'Refused by signing policy rule "no-burn"',
      ]);
      const allowed = op(FRIEND);
      // EntryPoint v0.8's userOpHash is this EIP-712 hash.
      await expectTypedDataSigned(w3, allowed);
    });

    it("EIP-7702: a delegate off the allow-list is refused even with rawPayloads allow; Simple7702Account signs", async () => {
      const open = await signUpByEmail(h, unique("rawallowed"), keyOf(RAW_ALLOWED_APP));
      const plain = await signUpByEmail(h, unique("nopolicy"), keyOf(TEST_APP));
      for (const u of [open, plain, w3]) {
        const refused = signedOf(
          await signPayload(
            u,
            json({ chainId: 1, address: FRIEND, nonce: 0 }),
            "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
          ),
        );
        expect(refused).toEqual({
          status: "ACTIVITY_STATUS_REJECTED",
          failure: {
            code: "POLICY_DENIED",
            message: `Refused by the signing policy: ${FRIEND.toLowerCase()} is not an EIP-7702 delegate this app allows (authorizationDelegates)`,
          },
        });
        const ok = signedOf(
          await signPayload(
            u,
            json({ chainId: 1, address: SIMPLE_7702, nonce: 0 }),
            "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
          ),
        );
        expect(ok.status).toBe("ACTIVITY_STATUS_COMPLETED");
        const hash = hashAuthorization({ chainId: 1, address: SIMPLE_7702, nonce: 0 });
        expect(await recoverAddress({ hash, signature: ok.signature as Hex })).toBe(u.address);
      }
      // A type-4 transaction carrying an authorization to another delegate is refused too.
      const type4 = (address: Hex) =>
        serializeTransaction({
          type: "eip7702",
          chainId: 1,
          nonce: 0,
          to: FRIEND,
          gas: 100000n,
          maxFeePerGas: parseGwei("20"),
          maxPriorityFeePerGas: parseGwei("1"),
          authorizationList: [
            { address, chainId: 1, nonce: 1, r: keccak256("0x01"), s: keccak256("0x02"), yParity: 0 },
          ],
        });
      expect(activityOf(await signTx(open, type4(FRIEND))).failure?.code).toBe("POLICY_DENIED");
      expect(activityOf(await signTx(open, type4(SIMPLE_7702))).status).toBe("ACTIVITY_STATUS_COMPLETED");
    });

    it("messages (EIP-191) and Solana payloads still sign in an app with transaction rules", async () => {
      const message = viemToHex("hello from w3");
      const ok = signedOf(await signPayload(w3, message, "PAYLOAD_ENCODING_EIP191_MESSAGE"));
      expect(ok.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect(
        await verifyMessage({
          address: w3.address as Hex,
          message: { raw: message },
          signature: ok.signature as Hex,
        }),
      ).toBe(true);
      const solana = signedOf(
        await signPayload(
          w3,
          "0x0102",
          "PAYLOAD_ENCODING_HEXADECIMAL",
          "HASH_FUNCTION_NOT_APPLICABLE",
          w3.solanaAddress,
        ),
      );
      expect(solana.status).toBe("ACTIVITY_STATUS_COMPLETED");
      // Malformed structured payloads are a 400, not a signature.
      const bad = await signPayload(w3, "{", "PAYLOAD_ENCODING_EIP712");
      expect([bad.status, bad.json.code]).toEqual([400, "INVALID_REQUEST"]);
      const onSolana = await signPayload(
        w3,
        message,
        "PAYLOAD_ENCODING_EIP191_MESSAGE",
        undefined,
        w3.solanaAddress,
      );
      expect([onSolana.status, onSolana.json.code]).toEqual([400, "INVALID_REQUEST"]);
    });
  });

  describe("W6: calls through the user's own accounts are the calls those accounts run", () => {
    const accountCalls = parseAbi([
      "function execute(address target, uint256 value, bytes data)",
      "function executeBatch((address target, uint256 value, bytes data)[] calls)",
      "function upgradeToAndCall(address newImplementation, bytes data)",
    ]);
    const execute = (target: string, value: bigint, data: Hex = "0x") =>
      encodeFunctionData({ abi: accountCalls, functionName: "execute", args: [target as Hex, value, data] });
    const approveMax = encodeFunctionData({
      abi: parseAbi(["function approve(address,uint256)"]),
      args: [FRIEND, 2n ** 256n - 1n],
    });
    const increment = "0xd09de08a";
    let w6: EmailUser;
    beforeAll(async () => {
      w6 = await signUpByEmail(h, unique("w6"), keyOf(W3_APP));
    });
    const rejected = (r: { json: Record<string, unknown> }) => {
      const a = activityOf(r);
      return [a.status, a.failure?.code, a.failure?.message];
    };
    const ruleIdsAudited = async (u: EmailUser) =>
      (
        await h.service.ctx.db
          .selectFrom("audit_log")
          .select("details")
          .where("user_id", "=", u.userId)
          .where("event", "=", "signing.rejected")
          .execute()
      ).map((a) => JSON.parse(a.details ?? "{}").ruleId);

    it("execute on the user's own address (7702) and on their SimpleAccount is read: a denied inner call is REJECTED", async () => {
      const noBurn = [
        "ACTIVITY_STATUS_REJECTED",
        "POLICY_DENIED",
        'Refused by signing policy rule "no-burn"',
      ];
      // Control: the same call made directly.
      expect(rejected(await signTx(w6, tx({ to: BURN, value: parseEther("0.1") })))).toEqual(noBurn);
      const viaSelf = tx({
        to: w6.address as Hex,
        value: 0n,
        data: execute(BURN, parseEther("0.1")),
        gas: 100_000n,
      });
      expect(rejected(await signTx(w6, viaSelf))).toEqual(noBurn);
      for (const factory of ["SimpleAccountFactory", "LatchkeySimpleAccountFactory"] as const) {
        const account = simpleAccountAddress({ factory, owner: w6.address as Hex });
        const viaAccount = tx({
          to: account,
          value: 0n,
          data: execute(BURN, parseEther("0.1")),
          gas: 100_000n,
        });
        expect(rejected(await signTx(w6, viaAccount))).toEqual(noBurn);
      }
      // A batch whose nested self-call approves on the token.
      const batch = encodeFunctionData({
        abi: accountCalls,
        functionName: "executeBatch",
        args: [
          [
            { target: TOKEN, value: 0n, data: increment },
            { target: w6.address as Hex, value: 0n, data: execute(TOKEN, 0n, approveMax) },
          ],
        ],
      });
      expect(
        rejected(await signTx(w6, tx({ to: w6.address as Hex, value: 0n, data: batch, gas: 200_000n }))),
      ).toEqual([
        "ACTIVITY_STATUS_REJECTED",
        "POLICY_DENIED",
        'Refused by signing policy rule "no-token-approve"',
      ]);
      // The allowed case is still signed, by the user's key.
      const allowed = activityOf(
        await signTx(
          w6,
          tx({ to: w6.address as Hex, value: 0n, data: execute(FRIEND, parseEther("0.1")), gas: 100_000n }),
        ),
      );
      expect(allowed.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const signed = allowed.result.signTransactionResult?.signedTransaction as Hex;
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(w6.address);
      // A plain transfer to self is a call to self, as before.
      expect(activityOf(await signTx(w6, tx({ to: w6.address as Hex }))).status).toBe(
        "ACTIVITY_STATUS_COMPLETED",
      );
    });

    it("a user operation calling its sender's execute in execute is read to the inner call (EIP-712)", async () => {
      const op = (callData: Hex) =>
        getUserOperationTypedData({
          chainId: 31337,
          entryPointAddress: entryPoint08Address,
          userOperation: {
            sender: w6.address as Hex,
            nonce: 0n,
            callData,
            callGasLimit: 100000n,
            verificationGasLimit: 100000n,
            preVerificationGas: 50000n,
            maxFeePerGas: 1n,
            maxPriorityFeePerGas: 1n,
            signature: "0x",
          },
        });
      const nested = op(execute(w6.address, 0n, execute(BURN, parseEther("0.1"))));
      expect(signedOf(await signPayload(w6, json(nested), "PAYLOAD_ENCODING_EIP712"))).toEqual({
        status: "ACTIVITY_STATUS_REJECTED",
        failure: { code: "POLICY_DENIED", message: 'Refused by signing policy rule "no-burn"' },
      });
      const allowed = op(execute(w6.address, 0n, execute(FRIEND, 1n)));
      await expectTypedDataSigned(w6, allowed);
    });

    it("a self-call that runs anything but execute/executeBatch is refused when the app has rules", async () => {
      const account = simpleAccountAddress({
        factory: "LatchkeySimpleAccountFactory",
        owner: w6.address as Hex,
      });
      const upgrade = encodeFunctionData({
        abi: accountCalls,
        functionName: "upgradeToAndCall",
        args: [FRIEND, "0x"],
      });
      const [status, code, message] = rejected(
        await signTx(w6, tx({ to: account, value: 0n, data: upgrade, gas: 100_000n })),
      );
      expect([status, code]).toEqual(["ACTIVITY_STATUS_REJECTED", "POLICY_DENIED"]);
      expect(message).toBe(
        `Refused by the signing policy: the call to the user's own account ${account} runs something other than execute or executeBatch (or nests them more than 4 deep), which no rule can read`,
      );
      expect(await ruleIdsAudited(w6)).toContain("ownAccountCalls");
      // Without a policy, it is signed as before.
      const plain = await signUpByEmail(h, unique("w6plain"), keyOf(TEST_APP));
      const own = tx({ to: plain.address as Hex, value: 0n, data: upgrade, gas: 100_000n });
      expect(activityOf(await signTx(plain, own)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    });

    it("value rules sum the calls a self-call runs: a batch above the cap is REJECTED, one above the hold is held", async () => {
      const batch = (...values: bigint[]) =>
        encodeFunctionData({
          abi: accountCalls,
          functionName: "executeBatch",
          args: [values.map((value) => ({ target: FRIEND as Hex, value, data: "0x" as Hex }))],
        });
      // 60 + 50 ETH: each under "huge" (100 ETH), together above it.
      const huge = activityOf(
        await signTx(
          user,
          tx({
            to: user.address as Hex,
            value: 0n,
            data: batch(parseEther("60"), parseEther("50")),
            nonce: 20,
            gas: 200_000n,
          }),
        ),
      );
      expect([huge.status, huge.failure?.message]).toEqual([
        "ACTIVITY_STATUS_REJECTED",
        'Refused by signing policy rule "huge"',
      ]);
      // 2 ETH to a friend through execute on the user's own address: held for an admin, as if sent directly.
      const held = activityOf(
        await signTx(
          user,
          tx({
            to: user.address as Hex,
            value: 0n,
            data: execute(FRIEND, parseEther("2")),
            nonce: 21,
            gas: 100_000n,
          }),
        ),
      );
      expect([held.status, held.failure?.message]).toEqual([
        "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        'Held by signing policy rule "large" until an app admin approves it',
      ]);
      // The admin's approval asks the policy again, reading the same calls: it is signed then.
      const approved = await decide("approve", { activityId: held.id });
      expect(activityOf(approved).status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect((await getActivity(user, held.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    });
  });

  it("an app without a policy signs everything", async () => {
    const plain = await signUpByEmail(h, unique("plain"), keyOf(TEST_APP));
    expect(activityOf(await signTx(plain, tx({ to: BURN }))).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});

function permit(token: string, spender: string) {
  return {
    domain: { name: "Token", version: "1", chainId: 31337, verifyingContract: token as Hex },
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit" as const,
    message: { owner: FRIEND, spender: spender as Hex, value: 10n ** 18n, nonce: 0n, deadline: 2n ** 40n },
  };
}
