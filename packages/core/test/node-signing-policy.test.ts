/**
 * Signing policies as an app sees them through @latchkey/core: a transaction the policy denies throws an
 * ActivityError (REJECTED) that names the rule; one it holds throws CONSENSUS_NEEDED, and
 * `waitForActivity` gives it signed once an app admin approves (or throws REJECTED once one rejects).
 * Through the EIP-1193 provider the same refusal is a -32003 "transaction rejected".
 */
import {
  ActivityError,
  createEip1193Provider,
  type Signer,
  signRawMessage,
  toViemAccount,
  waitForActivity,
} from "@latchkey/core";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  keccak256,
  type LocalAccount,
  parseEther,
  parseGwei,
  recoverTransactionAddress,
  type TransactionSerializable,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

const BURN = "0x000000000000000000000000000000000000dEaD";
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const ADMIN_KEY = generateP256PrivateKey();
const APP = {
  id: "policy-app",
  name: "Policy App",
  apiKeys: ["lk_policy_core_0123456789abcdef"],
  allowedOrigins: ["http://127.0.0.1:1"],
  signingPolicy: {
    rules: [
      { id: "no-burn", effect: "deny" as const, contracts: [BURN], description: "Not to the burn address" },
      { id: "large", effect: "needs_approval" as const, valueAboveWei: parseEther("1").toString() },
    ],
    rawPayloads: "deny" as const,
    messages: "deny" as const,
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
};

let svc: TestService;
let signer: Signer;
let account: LocalAccount;
let appOrg: string;

beforeAll(async () => {
  svc = await startService({ apps: [APP] });
  signer = await signInWithOtp(svc, "policy@example.com", { apiKey: APP.apiKeys[0] as string });
  account = toViemAccount(signer);
  appOrg = (await svc.service.ctx.apps.byId(APP.id))?.orgId as string;
});
afterAll(async () => {
  await svc?.close();
});

const transfer = (over: Partial<TransactionSerializable> = {}) =>
  ({
    type: "eip1559",
    chainId: 31337,
    nonce: 0,
    to: FRIEND,
    value: parseEther("0.1"),
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
    ...over,
  }) as TransactionSerializable;

/** What an app admin's backend (or `latchkey activity approve`) sends: a body stamped by its admin key. */
async function decide(decision: "approve" | "reject", activityId: string) {
  const body = JSON.stringify({
    type: decision === "approve" ? "ACTIVITY_TYPE_APPROVE_ACTIVITY" : "ACTIVITY_TYPE_REJECT_ACTIVITY",
    timestampMs: String(Date.now()),
    organizationId: appOrg,
    parameters: { activityId },
  });
  const stamp = stampWithPrivateKey(body, ADMIN_KEY);
  const res = await fetch(`${svc.baseUrl}/public/v1/submit/${decision}_activity`, {
    method: "POST",
    headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
    body,
  });
  expect(res.status).toBe(200);
}

async function heldError(promise: Promise<unknown>): Promise<ActivityError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActivityError);
  return error as ActivityError;
}

describe("signing policy", () => {
  it("signs what the policy allows, through the service's sign_transaction", async () => {
    const signed = await account.signTransaction(transfer());
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(account.address);
  });

  it("a denied transaction is REJECTED, and the error says which rule", async () => {
    const error = await heldError(account.signTransaction(transfer({ to: BURN })));
    expect({
      code: error.code,
      status: error.activityStatus,
      failure: error.failureCode,
      message: error.message,
    }).toEqual({
      code: "ACTIVITY_FAILED",
      status: "ACTIVITY_STATUS_REJECTED",
      failure: "POLICY_DENIED",
      message: 'Refused by signing policy rule "no-burn": Not to the burn address',
    });
    expect(error.activityId).toMatch(/.+/);
    // Waiting for it does not help: it stays refused.
    const again = await heldError(waitForActivity(signer, { activityId: error.activityId }));
    expect(again.activityStatus).toBe("ACTIVITY_STATUS_REJECTED");
  });

  it("an approval-gated transaction waits, then completes after an admin's approval", async () => {
    const error = await heldError(account.signTransaction(transfer({ value: parseEther("2"), nonce: 1 })));
    expect([error.activityStatus, error.message]).toEqual([
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      'Held by signing policy rule "large" until an app admin approves it',
    ]);
    const waiting = waitForActivity(signer, { activityId: error.activityId });
    // Still waiting before the admin decides (a short timeout says so).
    const early = await heldError(waitForActivity(signer, { activityId: error.activityId, timeoutMs: 0 }));
    expect(early.activityStatus).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await decide("approve", error.activityId);
    const { activity, signedTransaction } = await waiting;
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverTransactionAddress({ serializedTransaction: signedTransaction as never })).toBe(
      account.address,
    );
  });

  it("an approval-gated transaction fails after an admin's rejection", async () => {
    const error = await heldError(account.signTransaction(transfer({ value: parseEther("3"), nonce: 2 })));
    const waiting = heldError(waitForActivity(signer, { activityId: error.activityId }));
    await decide("reject", error.activityId);
    const rejected = await waiting;
    expect([rejected.activityStatus, rejected.message]).toEqual([
      "ACTIVITY_STATUS_REJECTED",
      "An app admin rejected this signature",
    ]);
  });

  it("waitForActivity stops when its signal aborts", async () => {
    const error = await heldError(account.signTransaction(transfer({ value: parseEther("4"), nonce: 3 })));
    const controller = new AbortController();
    const waiting = waitForActivity(signer, { activityId: error.activityId, signal: controller.signal });
    controller.abort(new Error("left the page"));
    await expect(waiting).rejects.toThrow("left the page");
  });

  it("raw payloads denied by the policy throw an ActivityError too (REJECTED, with the activity)", async () => {
    const error = await heldError(signRawMessage(signer, { message: keccak256("0x01") }));
    expect([error.activityStatus, error.failureCode]).toEqual(["ACTIVITY_STATUS_REJECTED", "POLICY_DENIED"]);
    expect(error.message).toBe(
      "Refused by the signing policy: this app does not sign bare hashes (raw payloads), which no rule can read",
    );
  });

  it("the EIP-1193 provider answers a refusal as -32003 with the activity", async () => {
    const provider = createEip1193Provider(signer);
    const error = await provider
      .request({ method: "personal_sign", params: ["0x68656c6c6f", account.address] })
      .then(
        () => null,
        (e: unknown) => e as { code: number; message: string; data: Record<string, unknown> },
      );
    expect(error?.code).toBe(-32003);
    expect(error?.message).toBe("Refused by the signing policy: this app does not sign messages (EIP-191)");
    expect(error?.data).toMatchObject({
      code: "ACTIVITY_FAILED",
      activityStatus: "ACTIVITY_STATUS_REJECTED",
    });
    expect(typeof error?.data.activityId).toBe("string");
  });
});
