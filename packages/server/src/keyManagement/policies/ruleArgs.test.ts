import { encodeFunctionData, erc20Abi, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { evaluatePolicy, needsSimulation, type SigningRequest } from "./evaluatePolicy";
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

describe("args, condition by condition", () => {
  const tokenTransfer = (to: `0x${string}`, amount: bigint) =>
    encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] });

  it("recipientNotIn matches when any recipient is outside the list; a call that sends nothing, never", () => {
    const p = policy({ rules: [{ id: "out", effect: "deny", args: { recipientNotIn: [FRIEND] } }] });
    // Value to the token contract and tokens to a friend: the contract is not in the list.
    expect(evaluatePolicy(p, call(tokenTransfer(FRIEND, 1n), TOKEN, 1n))).toMatchObject({
      effect: "deny",
      ruleId: "out",
    });
    expect(evaluatePolicy(p, call(tokenTransfer(FRIEND, 1n), TOKEN, 0n))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, approve(ROUTER))).toEqual({ effect: "allow" });
  });

  it("amountAbove counts only the named token's amounts, and only more than the amount", () => {
    const p = policy({
      rules: [
        { id: "eth", effect: "deny", args: { amountAbove: { token: "native", amount: "100" } } },
        { id: "tok", effect: "needs_approval", args: { amountAbove: { token: TOKEN, amount: "100" } } },
      ],
    });
    expect(evaluatePolicy(p, transfer(FRIEND, 1000n))).toMatchObject({
      effect: "needs_approval",
      ruleId: "tok",
    });
    expect(evaluatePolicy(p, transfer(FRIEND, 100n))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, call("0x", FRIEND, 100n))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, call("0x", FRIEND, 101n))).toMatchObject({ effect: "deny", ruleId: "eth" });
  });

  it("spenderIn matches an approve, increaseAllowance or setApprovalForAll to a listed spender; a recipient is no spender", () => {
    const p = policy({ rules: [{ id: "router", effect: "needs_approval", args: { spenderIn: [ROUTER] } }] });
    const held = { effect: "needs_approval", ruleId: "router" };
    expect(evaluatePolicy(p, approve(ROUTER))).toMatchObject(held);
    const all = encodeFunctionData({
      abi: parseAbi(["function setApprovalForAll(address,bool)"]),
      args: [ROUTER, true],
    });
    expect(evaluatePolicy(p, call(all))).toMatchObject(held);
    expect(evaluatePolicy(p, approve(FRIEND))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, transfer(ROUTER, 1n))).toEqual({ effect: "allow" });
  });

  it("a transfer whose recipient word has its high bytes set still meets recipientIn (the token pays the low 20 bytes)", () => {
    const p = policy({ rules: [{ id: "listed", effect: "deny", args: { recipientIn: [LISTED] } }] });
    const dirty =
      `0xa9059cbb${"ff".repeat(12)}${LISTED.slice(2)}${5n.toString(16).padStart(64, "0")}` as const;
    expect(evaluatePolicy(p, call(dirty))).toMatchObject({ effect: "deny", ruleId: "listed" });
  });

  it("delegateIn / delegateNotIn read an authorization's delegate and a type-4 transaction's, never a plain call's", () => {
    const type4 = (delegates: `0x${string}`[]): SigningRequest => ({
      kind: "transaction",
      chainId: 1,
      to: FRIEND,
      data: "0x",
      value: 0n,
      delegates,
    });
    const onlyRouter = policy({
      authorizationDelegates: [DELEGATE, ROUTER],
      rules: [{ id: "router", effect: "deny", args: { delegateIn: [ROUTER] } }],
    });
    expect(evaluatePolicy(onlyRouter, { kind: "authorization", chainId: 1, delegate: ROUTER })).toMatchObject(
      {
        effect: "deny",
        ruleId: "router",
      },
    );
    expect(evaluatePolicy(onlyRouter, { kind: "authorization", chainId: 1, delegate: DELEGATE })).toEqual({
      effect: "allow",
    });
    expect(evaluatePolicy(onlyRouter, type4([ROUTER]))).toMatchObject({ effect: "deny", ruleId: "router" });
    expect(evaluatePolicy(onlyRouter, type4([DELEGATE]))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(onlyRouter, call("0x", FRIEND))).toEqual({ effect: "allow" });

    const notSimple = policy({
      authorizationDelegates: [DELEGATE, ROUTER],
      rules: [{ id: "not-simple", effect: "needs_approval", args: { delegateNotIn: [DELEGATE] } }],
    });
    // A plain call delegates nothing: no delegate is outside the list.
    expect(evaluatePolicy(notSimple, call("0x", FRIEND))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(notSimple, type4([DELEGATE]))).toEqual({ effect: "allow" });
    // One of two delegates outside the list is enough.
    expect(evaluatePolicy(notSimple, type4([DELEGATE, ROUTER]))).toMatchObject({
      effect: "needs_approval",
      ruleId: "not-simple",
    });
  });

  it("an authorization is decided by the delegate rules alone: other rules do not read it", () => {
    const p = policy({
      rules: [
        { id: "mainnet", effect: "deny", chainIds: [1] },
        { id: "everything", effect: "deny" },
        { id: "to-listed", effect: "deny", args: { recipientIn: [LISTED] } },
      ],
    });
    expect(evaluatePolicy(p, { kind: "authorization", chainId: 1, delegate: DELEGATE })).toEqual({
      effect: "allow",
    });
  });
});

describe("netOutflowAbove, edge by edge", () => {
  const SENDER = "0x3333333333333333333333333333333333333333";
  const ok = (balanceChanges: { asset: "native" | `0x${string}`; delta: string }[], reverts = false) => ({
    simulation: { status: "ok" as const, reverts, balanceChanges },
  });
  const rule = (over: object = {}) =>
    policy({
      rules: [{ id: "outflow", effect: "deny", netOutflowAbove: { asset: TOKEN, amount: "1000" }, ...over }],
    });

  it("only a loss of more than the amount, of that asset, in a simulation that does not revert", () => {
    const p = rule();
    expect(evaluatePolicy(p, transfer(FRIEND, 1000n), ok([{ asset: TOKEN, delta: "-1000" }]))).toEqual({
      effect: "allow",
    });
    expect(evaluatePolicy(p, transfer(FRIEND, 1001n), ok([{ asset: TOKEN, delta: "-1001" }]))).toEqual({
      effect: "deny",
      ruleId: "outflow",
      message: 'Refused by signing policy rule "outflow"',
    });
    // A reverting signature moves nothing.
    expect(evaluatePolicy(p, transfer(FRIEND, 5000n), ok([{ asset: TOKEN, delta: "-5000" }], true))).toEqual({
      effect: "allow",
    });
    // Another asset's loss is not this one's.
    const both = ok([
      { asset: "native", delta: "-5000" },
      { asset: TOKEN, delta: "-10" },
    ]);
    expect(evaluatePolicy(p, transfer(FRIEND, 10n), both)).toEqual({ effect: "allow" });
    expect(evaluatePolicy(p, transfer(FRIEND, 10n), ok([]))).toEqual({ effect: "allow" });
  });

  it("applies only when one of the calls meets the rule's other conditions", () => {
    const p = rule({ contracts: [ROUTER] });
    const loss = ok([{ asset: TOKEN, delta: "-5000" }]);
    expect(evaluatePolicy(p, transfer(FRIEND, 5000n), loss)).toEqual({ effect: "allow" });
    // A user operation that calls the router and the token: one call is enough.
    const both: SigningRequest = {
      kind: "userOperation",
      chainId: 1,
      sender: SENDER,
      calls: [
        {
          to: TOKEN,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [FRIEND, 1n] }),
          value: 0n,
        },
        { to: ROUTER, data: "0x", value: 0n },
      ],
    };
    expect(evaluatePolicy(p, both, loss)).toMatchObject({ effect: "deny", ruleId: "outflow" });
    // Without a simulation, a rule none of whose calls it is about does not fail closed.
    expect(evaluatePolicy(p, transfer(FRIEND, 5000n))).toEqual({ effect: "allow" });
  });

  it("without a simulation: needs_approval holds naming why, an allow rule does not apply", () => {
    const held = rule({ effect: "needs_approval", description: "Big" });
    expect(
      evaluatePolicy(held, transfer(FRIEND, 1n), { simulation: { status: "unavailable", reason: "noRpc" } }),
    ).toEqual({
      effect: "needs_approval",
      ruleId: "outflow",
      message:
        'Held by the signing policy until an app admin approves it: rule "outflow" needs a simulation of this signature\'s outcome, and the simulation is unavailable (noRpc)',
    });
    expect(evaluatePolicy(held, transfer(FRIEND, 5000n), ok([{ asset: TOKEN, delta: "-5000" }]))).toEqual({
      effect: "needs_approval",
      ruleId: "outflow",
      message: 'Held by signing policy rule "outflow" until an app admin approves it: Big',
    });
    const allow = policy({
      default: "deny",
      rules: [
        { id: "friend", effect: "allow", contracts: [TOKEN] },
        { id: "outflow", effect: "allow", netOutflowAbove: { asset: TOKEN, amount: "1000" } },
      ],
    });
    expect(evaluatePolicy(allow, transfer(FRIEND, 1n))).toEqual({ effect: "allow", ruleId: "friend" });
  });

  it("the service simulates only for a policy with a netOutflowAbove rule", () => {
    expect(needsSimulation(undefined)).toBe(false);
    expect(needsSimulation(policy({}))).toBe(false);
    expect(needsSimulation(policy({ rules: [{ id: "cap", effect: "deny", valueAboveWei: "1" }] }))).toBe(
      false,
    );
    expect(
      needsSimulation(
        policy({
          rules: [
            { id: "cap", effect: "deny", valueAboveWei: "1" },
            { id: "outflow", effect: "deny", netOutflowAbove: { asset: "native", amount: "1" } },
          ],
        }),
      ),
    ).toBe(true);
  });
});
