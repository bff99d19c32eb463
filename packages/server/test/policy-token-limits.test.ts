/**
 * Issue 47 item 1, signing policies: an app's `signingPolicy.tokenLimits` give each of its users "10 USDC
 * per 24 hours" and "4 USDC per transaction", counted from what each signature can move; a call on the
 * token the limits cannot count is refused; a body sent again is not counted twice; 16 signatures at
 * once never pass the limit. SQLite and PostgreSQL. (How the windows roll is the grants' code, tested
 * with an injected clock in grants-token-limits.test.ts; a user's session does not last a day.)
 */
import { randomBytes } from "node:crypto";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  encodeFunctionData,
  erc20Abi,
  type Hex,
  parseAbi,
  parseGwei,
  parseUnits,
  recoverTransactionAddress,
  serializeTransaction,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../src/config";
import { signingPolicySchema } from "../src/keyManagement/policies/policySchema";
import { type EmailUser, type Harness, post, signUpByEmail, stamped, startHarness } from "./helpers";

const USDC = "0x2222222222222222222222222222222222222222";
const FRIEND = "0x1111111111111111111111111111111111111111";
const usdc = (amount: string) => parseUnits(amount, 6);
const SERVER_KEY = generateP256PrivateKey();
const APP = {
  id: "capped-app",
  name: "Capped App",
  apiKeys: ["lk_capped_app_0123456789abcdef"],
  allowedOrigins: ["http://capped.test"],
  serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
  signingPolicy: {
    tokenLimits: [
      {
        chainId: 1,
        token: USDC,
        perTransaction: "4000000",
        windows: [{ window: "24h", amount: "10000000" }],
      },
    ],
  },
} satisfies AppConfig;
const KEY = { authorization: `Bearer ${APP.apiKeys[0]}` };
const ADMIN_KEY = generateP256PrivateKey();
/** Transfers above 3 USDC wait for an admin; 10 USDC per 24 hours each. */
const HELD_APP = {
  id: "held-app",
  name: "Held App",
  apiKeys: ["lk_held_app_0123456789abcdef"],
  allowedOrigins: ["http://held.test"],
  signingPolicy: {
    rules: [
      { id: "big", effect: "needs_approval", args: { amountAbove: { token: USDC, amount: "3000000" } } },
    ],
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
    tokenLimits: [{ chainId: 1, token: USDC, windows: [{ window: "24h", amount: "10000000" }] }],
  },
} satisfies AppConfig;

type Activity = {
  id: string;
  status: string;
  result: { signTransactionResult?: { signedTransaction: Hex } };
  failure?: { code: string; message: string };
};

describe.each(["sqlite", "postgres"] as const)("a signing policy's limits in tokens (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [APP, HELD_APP] });
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  function signTx(u: EmailUser, data: Hex, nonce: number, at = h.clock.now) {
    const unsignedTransaction = serializeTransaction({
      type: "eip1559",
      chainId: 1,
      nonce,
      to: USDC,
      data,
      gas: 100_000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      timestampMs: String(at),
      organizationId: u.orgId,
      parameters: { signWith: u.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
    });
    const stamp = stampWithPrivateKey(text, u.sessionKey);
    return post(h.url, "/public/v1/submit/sign_transaction", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    }).then((r) => r.json.activity as Activity);
  }
  const transfer = (amount: bigint) =>
    encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [FRIEND, amount] });

  it("each user gets 10 USDC per 24 hours and 4 per transaction; refusals say which limit and what is left", async () => {
    const alice = await signUpByEmail(h, unique("alice"), KEY);
    const at = h.clock.now;
    const signed = await signTx(alice, transfer(usdc("4")), 0, at);
    expect(signed.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      await recoverTransactionAddress({
        serializedTransaction: signed.result.signTransactionResult?.signedTransaction as never,
      }),
    ).toBe(alice.address);
    // Over the per-transaction limit.
    expect(await signTx(alice, transfer(usdc("4.5")), 1)).toMatchObject({
      status: "ACTIVITY_STATUS_REJECTED",
      failure: {
        code: "POLICY_DENIED",
        message: `The signing policy's limit of 4000000 per transaction for token ${USDC} on chain 1 does not cover 4500000: 4000000 left`,
      },
    });
    // An approval counts its whole amount.
    expect(
      (
        await signTx(
          alice,
          encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [FRIEND, usdc("4")] }),
          1,
        )
      ).status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    // The same body again is the same activity, counted once.
    const again = await signTx(alice, transfer(usdc("4")), 0, at);
    expect(again.id).toBe(signed.id);
    const over = await signTx(alice, transfer(usdc("3")), 2);
    expect(over.status).toBe("ACTIVITY_STATUS_REJECTED");
    expect(over.failure?.message).toMatch(
      new RegExp(
        `^The signing policy's limit of 10000000 per 24 hours for token ${USDC} on chain 1 does not cover 3000000: 2000000 left \\(more from .*Z\\)$`,
      ),
    );
    expect((await signTx(alice, transfer(usdc("2")), 2)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    // Another user has their own room.
    const bob = await signUpByEmail(h, unique("bob"), KEY);
    expect((await signTx(bob, transfer(usdc("4")), 0)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    // A call on the token the limits cannot count (its mint) is refused, audited naming the limits.
    const mint = encodeFunctionData({
      abi: parseAbi(["function mint(address to, uint256 amount)"]),
      args: [alice.address as Hex, 1n],
    });
    expect(await signTx(alice, mint, 3)).toMatchObject({
      status: "ACTIVITY_STATUS_REJECTED",
      failure: {
        code: "POLICY_DENIED",
        message: `The signing policy limits token ${USDC} on chain 1, and 0x40c10f19 on it is none of transfer, transferFrom, approve, increaseAllowance, a permit or a transfer authorization, whose amount the limit counts`,
      },
    });
    const audit = await h.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("user_id", "=", alice.userId)
      .where("event", "=", "signing.rejected")
      .execute();
    expect(audit.map((a) => (JSON.parse(a.details as string) as { ruleId: string }).ruleId)).toEqual([
      "tokenLimits",
      "tokenLimits",
      "tokenLimits",
    ]);
  });

  it("a held signature counts from when it is held; rejected, it is given back", async () => {
    const erin = await signUpByEmail(h, unique("erin"), { authorization: `Bearer ${HELD_APP.apiKeys[0]}` });
    const held = await signTx(erin, transfer(usdc("5")), 0);
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await signTx(erin, transfer(usdc("4")), 1)).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const over = await signTx(erin, transfer(usdc("2")), 2);
    expect(over).toMatchObject({ status: "ACTIVITY_STATUS_REJECTED" });
    expect(over.failure?.message).toMatch(/does not cover 2000000: 1000000 left/);
    const appOrg = (await h.service.ctx.apps.byId(HELD_APP.id))?.orgId as string;
    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
      timestampMs: String(h.clock.now),
      organizationId: appOrg,
      parameters: { activityId: held.id },
    });
    const stamp = stampWithPrivateKey(text, ADMIN_KEY);
    const rejected = await post(h.url, "/public/v1/submit/reject_activity", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    expect(rejected.status).toBe(200);
    // The 5 USDC the rejected signature counted are free again.
    expect((await signTx(erin, transfer(usdc("2")), 3)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await signTx(erin, transfer(usdc("3")), 4)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    // 4 (still held) + 2 + 3 + 1 = 10: the limit, exactly.
    expect((await signTx(erin, transfer(usdc("1")), 5)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await signTx(erin, transfer(1n), 6)).failure?.message).toMatch(/: 0 left/);
  });

  it("what the app's backend signs under a user's grant counts in the same room", async () => {
    const frank = await signUpByEmail(h, unique("frank"), KEY);
    const created = await post(
      h.url,
      "/signer/v1/grants/create",
      stamped(
        "/public/v1/query/whoami",
        {
          type: "OPERATION_TYPE_CREATE_GRANT",
          timestampMs: String(h.clock.now),
          organizationId: frank.orgId,
          parameters: { permissions: { chainIds: [1], expiresAt: h.clock.now + 3600_000 } },
        },
        frank.sessionKey,
      ),
      KEY,
    );
    const grantId = (created.json.grant as { grantId: string }).grantId;
    const bot = createBackendClient({
      url: h.url,
      appId: APP.id,
      serverKey: SERVER_KEY,
      now: () => h.clock.now,
    });
    const byBot = (amount: bigint, nonce: number) =>
      bot.signTransaction({
        userId: frank.userId,
        grantId,
        transaction: { chainId: 1, to: USDC, data: transfer(amount), nonce, gas: 100_000n, maxFeePerGas: 1n },
      });
    await byBot(usdc("4"), 0);
    expect((await signTx(frank, transfer(usdc("4")), 1)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const refused = await byBot(usdc("4"), 2).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BackendApiError);
    expect(refused).toMatchObject({
      code: "POLICY_DENIED",
      status: 403,
      message: expect.stringMatching(/does not cover 4000000: 2000000 left/),
      data: { ruleId: "tokenLimits" },
    });
    await byBot(usdc("2"), 2);
    const [grant] = (await bot.listGrants(frank.userId)).filter((g) => g.grantId === grantId);
    // The refused one was not counted against the grant either.
    expect(grant?.operationsUsed).toBe(2);
  });

  it("16 signatures of 1 USDC at once sign exactly 10", async () => {
    const dave = await signUpByEmail(h, unique("dave"), KEY);
    const all = await Promise.all(Array.from({ length: 16 }, (_, i) => signTx(dave, transfer(usdc("1")), i)));
    const statuses = all.map((a) => a.status);
    expect(statuses.filter((s) => s === "ACTIVITY_STATUS_COMPLETED")).toHaveLength(10);
    expect(statuses.filter((s) => s === "ACTIVITY_STATUS_REJECTED")).toHaveLength(6);
    const ledger = await h.service.ctx.db
      .selectFrom("user_token_spends")
      .select("amount")
      .where("org_id", "=", dave.orgId)
      .execute();
    expect(ledger.map((r) => r.amount)).toEqual(Array(10).fill("1000000"));
  });
});

describe("a signing policy's token limits as configured", () => {
  it("count per rolling or UTC-day window, never in all (a user's ledger keeps 30 days)", () => {
    const parsed = signingPolicySchema.safeParse({
      tokenLimits: [{ chainId: 1, token: USDC, windows: [{ window: "total", amount: "1" }] }],
    });
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      'a signing policy\'s token limit counts per "24h", "7d", "30d" or "day", not "total"',
    ]);
    expect(signingPolicySchema.parse(APP.signingPolicy).tokenLimits).toEqual([
      {
        chainId: 1,
        token: USDC,
        perTransaction: "4000000",
        windows: [{ window: "24h", amount: "10000000" }],
      },
    ]);
  });
});
