import { encodeFunctionData, erc20Abi } from "viem";
import { describe, expect, it } from "vitest";
import { evaluatePolicy, type SigningRequest } from "./evaluatePolicy";
import { type SigningPolicyConfig, signingPolicySchema } from "./policySchema";

// What each decision says, word for word, and which of equal decisions wins: the texts a user and an app
// admin read (the signing policy's refusals and holds), and the order rules are weighed in.
const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const FRIEND = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const BURN = "0x000000000000000000000000000000000000dead";
const ROUTER = "0x00000000000000000000000000000000000000aa";
const SENDER = "0x3333333333333333333333333333333333333333";
const ADMIN = { name: "ops", publicKey: `02${"11".repeat(32)}` };

const policy = (config: SigningPolicyConfig) => signingPolicySchema.parse(config);
const tx = (to: `0x${string}` = FRIEND, value = 0n, data: `0x${string}` = "0x"): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to,
  data,
  value,
});
const approveData = (spender: `0x${string}`, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, amount] });
const userOperation = (
  calls: { to: `0x${string}`; value?: bigint; data?: `0x${string}` }[],
): SigningRequest => ({
  kind: "userOperation",
  chainId: 1,
  sender: SENDER,
  calls: calls.map((c) => ({ to: c.to, data: c.data ?? "0x", value: c.value ?? 0n })),
});

describe("the settings' decisions, word for word", () => {
  it("messages, typed data and Solana payloads: refused or held, naming the setting", () => {
    expect(evaluatePolicy(policy({ messages: "deny" }), { kind: "message" })).toEqual({
      effect: "deny",
      ruleId: "messages",
      message: "Refused by the signing policy: this app does not sign messages (EIP-191)",
    });
    expect(evaluatePolicy(policy({ messages: "needs_approval" }), { kind: "message" })).toEqual({
      effect: "needs_approval",
      ruleId: "messages",
      message: "Held by the signing policy: this app's messages (EIP-191) wait for an app admin's approval",
    });
    expect(evaluatePolicy(policy({}), { kind: "message" })).toEqual({ effect: "allow" });
    expect(evaluatePolicy(policy({ solanaPayloads: "deny" }), { kind: "solanaPayload" })).toEqual({
      effect: "deny",
      ruleId: "solanaPayloads",
      message: "Refused by the signing policy: this app does not sign Solana payloads",
    });
    const typed: SigningRequest = {
      kind: "typedData",
      chainId: 1,
      primaryType: "Mail",
      verifyingContract: TOKEN,
      approvals: [],
    };
    expect(evaluatePolicy(policy({ typedData: "deny" }), typed)).toEqual({
      effect: "deny",
      ruleId: "typedData",
      message: "Refused by the signing policy: this app does not sign typed data no rule allows",
    });
    expect(evaluatePolicy(policy({ typedData: "needs_approval", adminKeys: [ADMIN] }), typed)).toEqual({
      effect: "needs_approval",
      ruleId: "typedData",
      message:
        "Held by the signing policy: this app's typed data no rule allows wait for an app admin's approval",
    });
  });

  it("a rule's refusal and hold, with and without its description", () => {
    const p = policy({
      rules: [
        { id: "no-burn", effect: "deny", contracts: [BURN] },
        { id: "big", effect: "needs_approval", valueAboveWei: "100" },
        { id: "router", effect: "needs_approval", contracts: [ROUTER], description: "Ask first" },
      ],
    });
    expect(evaluatePolicy(p, tx(BURN))).toEqual({
      effect: "deny",
      ruleId: "no-burn",
      message: 'Refused by signing policy rule "no-burn"',
    });
    expect(evaluatePolicy(p, tx(FRIEND, 101n))).toEqual({
      effect: "needs_approval",
      ruleId: "big",
      message: 'Held by signing policy rule "big" until an app admin approves it',
    });
    expect(evaluatePolicy(p, tx(ROUTER))).toEqual({
      effect: "needs_approval",
      ruleId: "router",
      message: 'Held by signing policy rule "router" until an app admin approves it: Ask first',
    });
  });

  it("a self-call whose effect cannot be read: refused, naming the account", () => {
    const p = policy({ rules: [{ id: "no-burn", effect: "deny", contracts: [BURN] }] });
    expect(evaluatePolicy(p, userOperation([{ to: SENDER, data: "0xdeadbeef" }]))).toEqual({
      effect: "deny",
      ruleId: "ownAccountCalls",
      message: `Refused by the signing policy: the call to the user's own account ${SENDER} runs something other than execute or executeBatch (or nests them more than 4 deep), which no rule can read`,
    });
  });
});

describe("which decision wins", () => {
  it("the strictest matching rule, whatever the order, from rules on the call alone", () => {
    const rules = [
      { id: "friend", effect: "allow" as const, contracts: [FRIEND] },
      { id: "ask", effect: "needs_approval" as const, contracts: [FRIEND] },
      { id: "never", effect: "deny" as const, chainIds: [1], contracts: [FRIEND] },
    ];
    for (const ordered of [rules, [...rules].reverse()]) {
      expect(evaluatePolicy(policy({ rules: ordered }), tx())).toMatchObject({
        effect: "deny",
        ruleId: "never",
      });
      const noDeny = ordered.filter((r) => r.effect !== "deny");
      expect(evaluatePolicy(policy({ rules: noDeny }), tx())).toMatchObject({
        effect: "needs_approval",
        ruleId: "ask",
      });
    }
  });

  it("of equally strict calls or requests, the first", () => {
    const p = policy({
      rules: [
        { id: "no-burn", effect: "deny", contracts: [BURN] },
        { id: "no-router", effect: "deny", contracts: [ROUTER] },
      ],
    });
    expect(evaluatePolicy(p, userOperation([{ to: ROUTER }, { to: BURN }]))).toMatchObject({
      ruleId: "no-router",
    });
    expect(evaluatePolicy(p, userOperation([{ to: BURN }, { to: ROUTER }]))).toMatchObject({
      ruleId: "no-burn",
    });
    const several = (requests: SigningRequest[]): SigningRequest => ({ kind: "several", requests });
    expect(evaluatePolicy(p, several([tx(ROUTER), tx(BURN)]))).toMatchObject({ ruleId: "no-router" });
    expect(evaluatePolicy(p, several([tx(BURN), tx(ROUTER)]))).toMatchObject({ ruleId: "no-burn" });
  });

  it("several payloads in one activity: the strictest of them; none, or all allowed: allow", () => {
    const p = policy({
      rules: [{ id: "no-burn", effect: "deny", contracts: [BURN] }],
      messages: "needs_approval",
    });
    const several = (requests: SigningRequest[]): SigningRequest => ({ kind: "several", requests });
    expect(evaluatePolicy(p, several([tx(), tx()]))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, several([]))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, several([tx(), { kind: "message" }]))).toMatchObject({
      effect: "needs_approval",
      ruleId: "messages",
    });
    expect(evaluatePolicy(p, several([{ kind: "message" }, tx(BURN), tx()]))).toMatchObject({
      effect: "deny",
      ruleId: "no-burn",
    });
  });
});

describe("conditions at their edges", () => {
  it("an allow rule with valueAboveWei allows only a call of more than that value", () => {
    const p = policy({ default: "deny", rules: [{ id: "big-ok", effect: "allow", valueAboveWei: "100" }] });
    expect(evaluatePolicy(p, tx(FRIEND, 101n))).toEqual({ effect: "allow", ruleId: "big-ok" });
    expect(evaluatePolicy(p, tx(FRIEND, 100n))).toMatchObject({ effect: "deny", ruleId: "default" });
  });

  it("spenders and amountAbove read only an approve call, and only an amount above", () => {
    const p = policy({
      rules: [
        { id: "router", effect: "deny", spenders: [ROUTER] },
        { id: "big", effect: "needs_approval", amountAbove: "1000" },
      ],
    });
    expect(evaluatePolicy(p, tx(TOKEN, 0n, approveData(ROUTER, 1n)))).toMatchObject({ ruleId: "router" });
    expect(evaluatePolicy(p, tx(TOKEN, 0n, approveData(FRIEND, 1000n)))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, tx(TOKEN, 0n, approveData(FRIEND, 1001n)))).toMatchObject({ ruleId: "big" });
    // A transfer (the same length as an approve) to the router, and a call without data, approve nothing.
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [ROUTER, 5000n] });
    expect(evaluatePolicy(p, tx(TOKEN, 0n, transfer))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, tx(ROUTER))).toEqual({ effect: "allow" });
    // An approve cut short approves nothing (the token reverts).
    expect(
      evaluatePolicy(p, tx(TOKEN, 0n, approveData(ROUTER, 5000n).slice(0, 100) as `0x${string}`)),
    ).toEqual({
      effect: "allow",
    });
  });

  it("an approve is read as the token reads it: bytes after it and the spender word's high bytes hide nothing", () => {
    const p = policy({
      rules: [
        { id: "router", effect: "deny", spenders: [ROUTER] },
        { id: "big", effect: "needs_approval", amountAbove: "1000" },
      ],
    });
    // Solidity's ABI decoder ignores call data after the arguments: the token approves the router.
    const trailing = `${approveData(ROUTER, 1n)}00` as const;
    expect(evaluatePolicy(p, tx(TOKEN, 0n, trailing))).toMatchObject({ effect: "deny", ruleId: "router" });
    expect(evaluatePolicy(p, tx(TOKEN, 0n, `${approveData(FRIEND, 5000n)}${"ff".repeat(32)}`))).toMatchObject(
      {
        effect: "needs_approval",
        ruleId: "big",
      },
    );
    // ABI coder v1 (tokens built before solc 0.8) drops the high bytes of an address argument.
    const d = approveData(ROUTER, 1n);
    const dirty = `0x${d.slice(2, 10)}${"ff".repeat(12)}${d.slice(34)}` as const;
    expect(evaluatePolicy(p, tx(TOKEN, 0n, dirty))).toMatchObject({ effect: "deny", ruleId: "router" });
  });
});
