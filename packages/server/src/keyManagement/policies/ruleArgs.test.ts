import { encodeFunctionData, erc20Abi, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { evaluatePolicy, type SigningRequest } from "./evaluatePolicy";
import { type SigningPolicyConfig, signingPolicySchema } from "./policySchema";

const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const LISTED = "0x000000000000000000000000000000000000bad0";
const FRIEND = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const ROUTER = "0x00000000000000000000000000000000000000aa";
const DELEGATE = "0xe6cae83bde06e4c305530e199d7217f42808555b";
const policy = (config: SigningPolicyConfig) => signingPolicySchema.parse(config);
const call = (data: `0x${string}`, to: `0x${string}` = TOKEN, value = 0n): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to,
  data,
  value,
});
const transfer = (to: `0x${string}`, amount: bigint) =>
  call(encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] }));
const approve = (spender: `0x${string}`) =>
  call(encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, 1n] }));

describe("rules on decoded arguments (args)", () => {
  it("matches a transfer's recipient in or not in a list, a token amount above, a spender", () => {
    const p = policy({
      rules: [
        { id: "listed", effect: "deny", args: { recipientIn: [LISTED] } },
        { id: "big", effect: "needs_approval", args: { amountAbove: { token: TOKEN, amount: "1000" } } },
        { id: "spender", effect: "deny", args: { spenderNotIn: [ROUTER] } },
        {
          id: "eth-out",
          effect: "needs_approval",
          args: { recipientNotIn: [FRIEND], amountAbove: { token: "native", amount: "0" } },
        },
      ],
    });
    expect(evaluatePolicy(p, transfer(LISTED, 1n))).toMatchObject({ effect: "deny", ruleId: "listed" });
    expect(evaluatePolicy(p, transfer(FRIEND, 1n))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, transfer(FRIEND, 1001n))).toMatchObject({
      effect: "needs_approval",
      ruleId: "big",
    });
    expect(evaluatePolicy(p, approve(ROUTER))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, approve(FRIEND))).toMatchObject({ effect: "deny", ruleId: "spender" });
    expect(evaluatePolicy(p, call("0x", FRIEND, 5n))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, call("0x", LISTED, 5n))).toMatchObject({ effect: "deny", ruleId: "listed" });
    expect(evaluatePolicy(p, call("0x", ROUTER, 5n))).toMatchObject({
      effect: "needs_approval",
      ruleId: "eth-out",
    });
    // transferFrom's recipient is its second argument.
    const from = encodeFunctionData({
      abi: parseAbi(["function transferFrom(address,address,uint256)"]),
      functionName: "transferFrom",
      args: [FRIEND, LISTED, 1n],
    });
    expect(evaluatePolicy(p, call(from))).toMatchObject({ effect: "deny", ruleId: "listed" });
  });

  it("matches an EIP-7702 delegate (delegateNotIn) on an authorization", () => {
    const p = policy({
      authorizationDelegates: [DELEGATE, ROUTER],
      rules: [{ id: "only-simple", effect: "needs_approval", args: { delegateNotIn: [DELEGATE] } }],
    });
    expect(evaluatePolicy(p, { kind: "authorization", chainId: 1, delegate: DELEGATE })).toEqual({
      effect: "allow",
    });
    expect(evaluatePolicy(p, { kind: "authorization", chainId: 1, delegate: ROUTER })).toMatchObject({
      effect: "needs_approval",
      ruleId: "only-simple",
    });
  });

  it("says what is wrong with a bad args or netOutflowAbove", () => {
    const bad = (rule: object) =>
      signingPolicySchema.safeParse({ rules: [{ id: "r", effect: "deny", ...rule }] });
    expect(bad({ args: {} }).error?.issues[0]?.message).toMatch(/args must set at least one of recipientIn/);
    expect(bad({ args: { recipientIn: ["0x12"] } }).error?.issues[0]?.message).toBe(
      "must be an EVM address: 0x followed by 40 hex digits",
    );
    expect(bad({ args: { amountAbove: { token: "ETH", amount: "1" } } }).error?.issues[0]?.message).toMatch(
      /must be "native" or a token's address/,
    );
    expect(bad({ netOutflowAbove: { asset: "native", amount: "1.5" } }).error?.issues[0]?.message).toMatch(
      /decimal string of the asset's smallest unit/,
    );
    expect(bad({ args: { recipientIn: [LISTED], typo: 1 } }).success).toBe(false);
  });
});

describe("rules on the simulated outcome (netOutflowAbove)", () => {
  const p = policy({
    rules: [
      {
        id: "outflow",
        effect: "deny",
        netOutflowAbove: { asset: TOKEN, amount: "1000" },
        description: "Too much",
      },
    ],
  });
  const sim = (delta: string) => ({
    simulation: {
      status: "ok" as const,
      reverts: false,
      balanceChanges: [{ asset: TOKEN as `0x${string}`, delta }],
    },
  });

  it("applies when the signer loses more than the amount, not when it loses less or gains", () => {
    expect(evaluatePolicy(p, transfer(FRIEND, 2000n), sim("-2000"))).toMatchObject({
      effect: "deny",
      ruleId: "outflow",
    });
    expect(evaluatePolicy(p, transfer(FRIEND, 500n), sim("-500"))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, transfer(FRIEND, 500n), sim("5000"))).toEqual({ effect: "allow" });
  });

  it("fails closed without a simulation, naming the rule and why", () => {
    expect(evaluatePolicy(p, transfer(FRIEND, 1n))).toEqual({
      effect: "deny",
      ruleId: "outflow",
      message:
        'Refused by the signing policy: rule "outflow" needs a simulation of this signature\'s outcome, and no simulation was made',
    });
    expect(
      evaluatePolicy(p, transfer(FRIEND, 1n), {
        simulation: {
          status: "unavailable",
          reason: "timeout",
          message: "The node did not answer within 2000 ms",
        },
      }),
    ).toMatchObject({
      effect: "deny",
      message: expect.stringContaining(
        "the simulation is unavailable (timeout: The node did not answer within 2000 ms)",
      ),
    });
  });
});
