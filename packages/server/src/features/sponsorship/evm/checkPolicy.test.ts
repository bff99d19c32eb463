import { encodeFunctionData, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appConfigSchema } from "../../../config";
import { RpcError } from "../jsonRpc";
import { checkDailyLimits, utcDay } from "../spending";
import { checkCalls, checkOperationLimits, dailyLimitsOf, operationCost } from "./checkPolicy";
import { chainsSchema, type SponsorshipPolicy, sponsorshipPolicySchema } from "./config";
import { decodeCalls, simpleAccountCallsAbi } from "./decodeCalls";

const COUNTER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const INCREMENT = toFunctionSelector("increment()");
const ADD = toFunctionSelector("add(uint256)");

const policy = (p: object): SponsorshipPolicy =>
  sponsorshipPolicySchema.parse({ id: "pol", chainId: 31337, ...p });
const execute = (target: string, data: `0x${string}`) =>
  encodeFunctionData({
    abi: simpleAccountCallsAbi,
    functionName: "execute",
    args: [target as `0x${string}`, 0n, data],
  });
/** The sender of the operations below (a SimpleAccount). */
const SENDER = "0x1111111111111111111111111111111111111111";
const op = (callData: string) => ({ sender: SENDER as `0x${string}`, callData: callData as `0x${string}` });
const batch = (...calls: [string, `0x${string}`][]) =>
  encodeFunctionData({
    abi: simpleAccountCallsAbi,
    functionName: "executeBatch",
    args: [calls.map(([target, data]) => ({ target: target as `0x${string}`, value: 0n, data }))],
  });

function refusal(f: () => void) {
  try {
    f();
  } catch (e) {
    if (e instanceof RpcError) return { code: e.rpcCode, reason: e.reason, ...e.details };
    throw e;
  }
  return undefined;
}

describe("sponsorship config", () => {
  it("takes policies with checksummed targets, lower-case selectors and wei as decimal strings", () => {
    const app = appConfigSchema.parse({
      id: "a",
      name: "A",
      sponsorship: {
        policies: [
          {
            id: "pol_counter",
            chainId: 31337,
            allowedTargets: [{ address: COUNTER.toLowerCase(), selectors: ["0xD09DE08A"] }],
            limits: { weiPerUserPerDay: "000100", operationsPerAppPerDay: 5 },
          },
        ],
      },
    });
    expect(app.sponsorship?.policies[0]).toEqual({
      id: "pol_counter",
      chainId: 31337,
      allowedTargets: [{ address: COUNTER, selectors: ["0xd09de08a"] }],
      // 7702 senders may delegate to Simple7702Account unless the policy says otherwise
      allowedImplementations: ["0xe6Cae83BdE06E4c305530e199D7217f42808555B"],
      limits: { weiPerUserPerDay: "100", operationsPerAppPerDay: 5 },
    });
  });

  it("says clearly what is wrong", () => {
    const problems = (policies: unknown[]) => {
      const r = appConfigSchema.safeParse({ id: "a", name: "A", sponsorship: { policies } });
      return r.success ? "" : z.prettifyError(r.error);
    };
    expect(problems([{ id: "p", chainId: 1, limits: { weiPerOperation: 1e18 } }])).toMatch(
      /decimal string of wei[\s\S]*limits\.weiPerOperation/,
    );
    expect(problems([{ id: "p", chainId: 1, limits: { operationsPerUserPerDay: 0 } }])).toMatch(/at least 1/);
    expect(problems([{ id: "p", chainId: 1, limits: { opsPerDay: 3 } }])).toMatch(/opsPerDay/);
    expect(problems([{ id: "p", chainId: 1, allowedTargets: [{ address: "0x12" }] }])).toMatch(/EVM address/);
    expect(
      problems([{ id: "p", chainId: 1, allowedTargets: [{ address: COUNTER, selectors: ["increment()"] }] }]),
    ).toMatch(/4-byte selector/);
    expect(
      problems([
        { id: "p", chainId: 1 },
        { id: "p", chainId: 2 },
      ]),
    ).toMatch(/policy p is listed twice/);
    expect(problems([{ id: "bad id", chainId: 1 }])).toMatch(/letters, digits/);
    const chains = chainsSchema.safeParse([
      { chainId: 5, rpcUrl: "http://127.0.0.1:8545" },
      { chainId: 5, rpcUrl: "http://127.0.0.1:8546" },
    ]);
    expect(chains.success ? "" : z.prettifyError(chains.error)).toMatch(/chain 5 is listed twice/);
    const parsed = chainsSchema.parse([{ chainId: 5, rpcUrl: "http://127.0.0.1:8545" }]);
    expect(parsed[0]).toMatchObject({
      entryPoint: "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108",
      accountFactory: "0x13E9ed32155810FDbd067D4522C492D6f68E5944",
    });
  });
});

describe("calls against the allow-list", () => {
  const counterIncrementOnly = policy({ allowedTargets: [{ address: COUNTER, selectors: [INCREMENT] }] });
  const counterAny = policy({ allowedTargets: [{ address: COUNTER }] });

  it("decodes execute and executeBatch, and nothing else", () => {
    expect(decodeCalls(execute(COUNTER, INCREMENT))).toEqual([
      { target: COUNTER, value: 0n, data: INCREMENT, selector: INCREMENT },
    ]);
    expect(
      decodeCalls(batch([COUNTER, "0x"], [OTHER, `${ADD}${"00".repeat(32)}`]))?.map((c) => c.selector),
    ).toEqual([null, ADD]);
    expect(decodeCalls("0xdeadbeef")).toBeNull();
    expect(decodeCalls("0x")).toBeNull();
  });

  it("allows listed targets and selectors only", () => {
    expect(refusal(() => checkCalls(counterIncrementOnly, op(execute(COUNTER, INCREMENT))))).toBeUndefined();
    expect(refusal(() => checkCalls(counterIncrementOnly, op(execute(OTHER, INCREMENT))))).toMatchObject({
      code: -32003,
      reason: "TARGET_NOT_ALLOWED",
      target: OTHER,
    });
    expect(refusal(() => checkCalls(counterIncrementOnly, op(execute(COUNTER, ADD))))).toMatchObject({
      reason: "SELECTOR_NOT_ALLOWED",
      selector: ADD,
    });
    // A plain transfer has no selector: refused where selectors are listed, allowed where they are not.
    expect(refusal(() => checkCalls(counterIncrementOnly, op(execute(COUNTER, "0x"))))).toMatchObject({
      reason: "SELECTOR_NOT_ALLOWED",
      selector: null,
    });
    expect(refusal(() => checkCalls(counterAny, op(execute(COUNTER, "0x"))))).toBeUndefined();
    expect(
      refusal(() => checkCalls(counterIncrementOnly, op(batch([COUNTER, INCREMENT], [OTHER, INCREMENT])))),
    ).toMatchObject({ reason: "TARGET_NOT_ALLOWED", call: 1 });
    expect(refusal(() => checkCalls(counterAny, op("0xdeadbeef")))).toMatchObject({
      reason: "CALL_DATA_NOT_ALLOWED",
    });
    // Without an allow-list, any call data goes.
  });

  it("reads a call to the sender as the calls it runs, and checks the calls an execute to another runs", () => {
    // The sender runs execute when it calls itself: its inner calls are what is checked.
    expect(
      refusal(() => checkCalls(counterIncrementOnly, op(execute(SENDER, execute(COUNTER, INCREMENT))))),
    ).toBeUndefined();
    expect(
      refusal(() => checkCalls(counterIncrementOnly, op(execute(SENDER, execute(OTHER, INCREMENT))))),
    ).toMatchObject({ reason: "TARGET_NOT_ALLOWED", target: OTHER });
    expect(
      refusal(() =>
        checkCalls(counterIncrementOnly, op(batch([COUNTER, INCREMENT], [SENDER, execute(COUNTER, ADD)]))),
      ),
    ).toMatchObject({ reason: "SELECTOR_NOT_ALLOWED", selector: ADD });
    // What else the sender would run for itself cannot be told.
    expect(refusal(() => checkCalls(counterAny, op(execute(SENDER, "0xdeadbeef"))))).toMatchObject({
      reason: "CALL_DATA_NOT_ALLOWED",
    });
    // Nested deeper than 4: refused.
    let deep = execute(COUNTER, INCREMENT);
    for (let i = 0; i < 4; i++) deep = execute(SENDER, deep);
    expect(refusal(() => checkCalls(counterAny, op(deep)))).toMatchObject({
      reason: "CALL_DATA_NOT_ALLOWED",
    });
    // An allowed target's execute runs calls too: they must be allowed.
    expect(refusal(() => checkCalls(counterAny, op(execute(COUNTER, execute(OTHER, "0x")))))).toMatchObject({
      reason: "TARGET_NOT_ALLOWED",
      target: OTHER,
    });
    expect(refusal(() => checkCalls(policy({}), op("0xdeadbeef")))).toBeUndefined();
  });
});

describe("limits", () => {
  const op = {
    callGasLimit: 100n,
    verificationGasLimit: 200n,
    preVerificationGas: 50n,
    maxFeePerGas: 10n,
  } as Parameters<typeof operationCost>[0];

  it("counts every gas limit, the paymaster's included, at maxFeePerGas", () => {
    const cost = operationCost(op, { paymasterVerificationGasLimit: 40n, paymasterPostOpGasLimit: 10n });
    expect(cost).toEqual({ gas: 400n, wei: 4000n });
    expect(
      refusal(() => checkOperationLimits(policy({ limits: { gasPerOperation: 400 } }), cost)),
    ).toBeUndefined();
    expect(
      refusal(() => checkOperationLimits(policy({ limits: { gasPerOperation: 399 } }), cost)),
    ).toMatchObject({
      code: -32003,
      reason: "OPERATION_LIMIT_EXCEEDED",
      limit: "gasPerOperation",
    });
    expect(
      refusal(() => checkOperationLimits(policy({ limits: { weiPerOperation: "3999" } }), cost)),
    ).toMatchObject({
      limit: "weiPerOperation",
      requested: "4000",
    });
  });

  it("holds the daily limits per user and per app, until midnight UTC", () => {
    const now = Date.UTC(2030, 0, 1, 23, 59);
    expect(utcDay(now)).toBe("2030-01-01");
    const usage = { app: { count: 9, amount: 900n }, user: { count: 2, amount: 200n } };
    const daily = dailyLimitsOf(
      policy({
        limits: {
          operationsPerUserPerDay: 3,
          weiPerUserPerDay: "300",
          operationsPerAppPerDay: 10,
          weiPerAppPerDay: "1000",
        },
      }),
    );
    expect(refusal(() => checkDailyLimits(daily, usage, { count: 1, amount: 100n }, now))).toBeUndefined();
    expect(refusal(() => checkDailyLimits(daily, usage, { count: 1, amount: 101n }, now))).toMatchObject({
      code: -32005,
      reason: "DAILY_LIMIT_EXCEEDED",
      limit: "weiPerUserPerDay",
      resetsAt: "2030-01-02T00:00:00.000Z",
    });
    const busyApp = { ...usage, app: { count: 10, amount: 0n } };
    expect(refusal(() => checkDailyLimits(daily, busyApp, { count: 1, amount: 1n }, now))).toMatchObject({
      limit: "operationsPerAppPerDay",
    });
    // A retried operation adds no operation.
    const full = { ...usage, user: { count: 3, amount: 200n } };
    expect(refusal(() => checkDailyLimits(daily, full, { count: 0, amount: 10n }, now))).toBeUndefined();
    expect(refusal(() => checkDailyLimits(daily, full, { count: 1, amount: 10n }, now))).toMatchObject({
      limit: "operationsPerUserPerDay",
    });
  });
});
