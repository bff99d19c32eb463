/**
 * What you sign is what you see (issue 46), on the service: `preview_signing` decodes a signature,
 * simulates it on the chain's node (the dev chain: hardhat, through debug_traceCall) and asks the app's
 * policy without signing or recording; policy rules read decoded arguments (`args`) and the simulated
 * outcome (`netOutflowAbove`, failing closed without a simulation); a held signature keeps its preview
 * and needs `approvals.required` distinct admins, each decision in the security log. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  parseGwei,
  recoverTransactionAddress,
  serializeTransaction,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../../../test-support/chain/index.js";
import { sharedChainStack } from "../../../test-support/chain/shared.js";
import { deployTestToken, mintTestToken } from "../../../test-support/chain/testToken.js";
import type { AppConfig } from "../src/config";
import { type EmailUser, type Harness, post, signUpByEmail, startHarness } from "./helpers";

const LISTED = "0x000000000000000000000000000000000000bad0";
const FRIEND = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const ADMIN_A = generateP256PrivateKey();
const ADMIN_B = generateP256PrivateKey();
const adminPublic = (k: Uint8Array) => toHex(p256PublicKeyFromPrivate(k, true));

describe.each(["sqlite", "postgres"] as const)("signing previews and approvals (%s)", (kind) => {
  let stack: ChainStack;
  let token: Address;
  let h: Harness;
  let user: EmailUser;
  let appOrg: string;
  let app: AppConfig;

  beforeAll(async () => {
    stack = await sharedChainStack({ bundler: false });
    token = await deployTestToken(stack.publicClient, { name: "Test USD", symbol: "TUSD", decimals: 6 });
    app = {
      id: "preview-app",
      name: "Preview App",
      apiKeys: ["lk_preview_key_0123456789abcdef"],
      allowedOrigins: ["http://preview.test"],
      signingPolicy: {
        rules: [
          {
            id: "no-listed",
            effect: "deny",
            args: { recipientIn: [LISTED] },
            description: "Transfers to a listed address are refused",
          },
          {
            id: "big-outflow",
            effect: "needs_approval",
            netOutflowAbove: { asset: token, amount: "2000000" },
          },
        ],
        adminKeys: [
          { name: "alice-admin", publicKey: adminPublic(ADMIN_A) },
          { name: "bob-admin", publicKey: adminPublic(ADMIN_B) },
        ],
        approvals: { required: 2 },
      },
    };
    h = await startHarness(kind, { apps: [app], chains: [{ chainId: stack.chainId, rpcUrl: stack.rpcUrl }] });
    user = await signUpByEmail(h, `preview-${kind}-${randomBytes(3).toString("hex")}@example.com`, {
      authorization: `Bearer ${app.apiKeys[0]}`,
    });
    appOrg = (await h.service.ctx.apps.byId(app.id))?.orgId as string;
    await mintTestToken(stack.publicClient, token, user.address as Address, 5_000_000n);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  let nonce = 0;
  const transferTx = (to: string, amount: bigint, chainId = stack.chainId) =>
    serializeTransaction({
      type: "eip1559",
      chainId,
      nonce: nonce++,
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as Address, amount] }),
      gas: 100_000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
  const request = (unsignedTransaction: Hex) => ({
    type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" as const,
    parameters: { signWith: user.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
  });

  function stampedPost(path: string, body: object, key: Uint8Array) {
    const text = JSON.stringify(body);
    const stamp = stampWithPrivateKey(text, key);
    return post(h.url, path, text, { [stamp.stampHeaderName]: stamp.stampHeaderValue });
  }
  const preview = (unsignedTransaction: Hex, locale?: string) =>
    stampedPost(
      "/public/v1/query/preview_signing",
      {
        type: "QUERY_TYPE_PREVIEW_SIGNING",
        organizationId: user.orgId,
        request: request(unsignedTransaction),
        ...(locale ? { locale } : {}),
      },
      user.sessionKey,
    );
  const sign = (unsignedTransaction: Hex) =>
    stampedPost(
      "/public/v1/submit/sign_transaction",
      {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        parameters: request(unsignedTransaction).parameters,
      },
      user.sessionKey,
    );
  const approve = (activityId: string, key: Uint8Array) =>
    stampedPost(
      "/public/v1/submit/approve_activity",
      {
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: String(Date.now() + Math.floor(Math.random() * 1000)),
        organizationId: appOrg,
        parameters: { activityId },
      },
      key,
    );
  const getActivity = async (activityId: string) =>
    (
      await stampedPost(
        "/public/v1/query/get_activity",
        { type: "QUERY_TYPE_GET_ACTIVITY", organizationId: user.orgId, activityId },
        user.sessionKey,
      )
    ).json.activity as Record<string, unknown> & { status: string; id: string };
  const auditOf = (activityId: string) =>
    h.service.ctx.db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("user_id", "=", user.userId)
      .orderBy("created_at")
      .execute()
      .then((rows) =>
        rows
          .map((r) => ({ event: r.event, details: JSON.parse(r.details ?? "{}") as Record<string, unknown> }))
          .filter((r) => r.details.activityId === activityId),
      );

  it("previews an ERC-20 transfer: what it does, its simulated balance change, the policy's answer; records nothing", async () => {
    const before = await h.service.ctx.db.selectFrom("activities").select("id").execute();
    const r = await preview(transferTx(FRIEND, 1_500_000n));
    expect(r.status).toBe(200);
    expect(r.json.preview).toEqual({
      chainId: stack.chainId,
      kind: "transaction",
      actions: [
        {
          kind: "erc20Transfer",
          token: {
            address: expect.stringMatching(new RegExp(token, "i")),
            symbol: "TUSD",
            name: "Test USD",
            decimals: 6,
          },
          to: expect.stringMatching(new RegExp(FRIEND, "i")),
          amount: "1500000",
        },
      ],
      warnings: [],
      summary: {
        title: expect.any(String),
        lines: [{ text: expect.stringContaining("1.5 TUSD"), depth: 0 }],
        warnings: [],
      },
      simulation: {
        status: "ok",
        reverts: false,
        method: "debug_traceCall",
        balanceChanges: [{ asset: token.toLowerCase(), symbol: "TUSD", decimals: 6, delta: "-1500000" }],
      },
      policy: { effect: "allow" },
    });
    // The summary comes in the language asked.
    const de = await preview(transferTx(FRIEND, 1_500_000n), "de");
    expect((de.json.preview as { summary: { lines: { text: string }[] } }).summary.lines[0]?.text).toContain(
      "1,5 TUSD",
    );
    // A transfer above the balance: the simulation says it reverts, and why.
    const reverting = (await preview(transferTx(FRIEND, 9_000_000n))).json.preview as Record<string, unknown>;
    expect(reverting.simulation).toMatchObject({
      status: "ok",
      reverts: true,
      revertReason: "TestToken: transfer amount exceeds balance",
    });
    expect(await h.service.ctx.db.selectFrom("activities").select("id").execute()).toHaveLength(
      before.length,
    );
  });

  it("refuses a transfer to a listed address (args.recipientIn), naming the rule, and signs one to another", async () => {
    const listed = transferTx(LISTED, 1_000_000n);
    const p = (await preview(listed)).json.preview as { policy: unknown };
    expect(p.policy).toEqual({
      effect: "deny",
      ruleId: "no-listed",
      description: "Transfers to a listed address are refused",
    });
    const r = await sign(listed);
    const activity = r.json.activity as { status: string; failure?: unknown };
    expect([r.status, activity.status, activity.failure]).toEqual([
      200,
      "ACTIVITY_STATUS_REJECTED",
      {
        code: "POLICY_DENIED",
        message: 'Refused by signing policy rule "no-listed": Transfers to a listed address are refused',
      },
    ]);
    const ok = (await sign(transferTx(FRIEND, 1_000_000n))).json.activity as {
      status: string;
      result: { signTransactionResult: { signedTransaction: Hex } };
    };
    expect(ok.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      await recoverTransactionAddress({
        serializedTransaction: ok.result.signTransactionResult.signedTransaction as never,
      }),
    ).toBe(user.address);
  });

  it("holds a large outflow (netOutflowAbove) until 2 distinct admins approve; the same admin twice counts once", async () => {
    const held = (await sign(transferTx(FRIEND, 3_000_000n))).json.activity as { id: string; status: string };
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const seen = await getActivity(held.id);
    expect(seen.preview).toMatchObject({
      summary: { lines: [{ text: expect.stringContaining("3 TUSD") }] },
      simulation: { status: "ok", balanceChanges: [{ asset: token.toLowerCase(), delta: "-3000000" }] },
      policy: { effect: "needs_approval", ruleId: "big-outflow" },
    });
    expect(seen.approvals).toEqual({ required: 2, approvedBy: [] });

    const first = await approve(held.id, ADMIN_A);
    expect(first.status).toBe(200);
    expect((first.json.activity as { result: unknown }).result).toEqual({
      approveActivityResult: {
        activityId: held.id,
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        approvals: { approved: 1, required: 2, duplicate: false },
      },
    });
    const again = await approve(held.id, ADMIN_A);
    expect((again.json.activity as { result: unknown }).result).toEqual({
      approveActivityResult: {
        activityId: held.id,
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        approvals: { approved: 1, required: 2, duplicate: true },
      },
    });
    const waiting = await getActivity(held.id);
    expect(waiting.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(waiting.approvals).toMatchObject({ required: 2, approvedBy: [{ admin: "alice-admin" }] });

    const second = await approve(held.id, ADMIN_B);
    expect((second.json.activity as { result: unknown }).result).toMatchObject({
      approveActivityResult: { status: "ACTIVITY_STATUS_COMPLETED", approvals: { approved: 2, required: 2 } },
    });
    const done = await getActivity(held.id);
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.approvals).toMatchObject({ approvedBy: [{ admin: "alice-admin" }, { admin: "bob-admin" }] });

    // Each decision is in the security log; the held event carries the decoded summary.
    const audit = await auditOf(held.id);
    expect(audit.map((a) => [a.event, a.details.admin, a.details.approvals])).toEqual([
      ["signing.held", undefined, undefined],
      ["signing.approval_recorded", "alice-admin", "1 of 2"],
      ["signing.approval_repeated", "alice-admin", "1 of 2"],
      ["signing.approved", "bob-admin", "2 of 2"],
    ]);
    expect(audit[0]?.details.summary).toEqual([expect.any(String), expect.stringContaining("3 TUSD")]);
  });

  it("fails closed when a rule needs a simulation the service cannot make (no RPC for the chain)", async () => {
    const elsewhere = transferTx(FRIEND, 1n, 999_999);
    const p = (await preview(elsewhere)).json.preview as Record<string, unknown>;
    expect(p.simulation).toEqual({
      status: "unavailable",
      reason: "noRpc",
      message: "The service has no RPC for chain 999999",
    });
    expect(p.policy).toMatchObject({ effect: "needs_approval", ruleId: "big-outflow" });
    const activity = (await sign(elsewhere)).json.activity as {
      status: string;
      failure: { message: string };
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(activity.failure.message).toBe(
      'Held by the signing policy until an app admin approves it: rule "big-outflow" needs a simulation of ' +
        "this signature's outcome, and the simulation is unavailable (noRpc: The service has no RPC for chain 999999)",
    );
  });
});
