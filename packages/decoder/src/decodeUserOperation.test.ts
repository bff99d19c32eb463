import { encodeFunctionData, erc20Abi, getAddress, type Hex, maxUint256 } from "viem";
import { entryPoint08Address, getUserOperationTypedData } from "viem/account-abstraction";
import { describe, expect, it } from "vitest";
import { accountCallsAbi } from "./abis";
import { MAX_CALL_DEPTH } from "./decodeCall";
import { decodeTypedData } from "./decodeTypedData";
import { decodeUserOperation } from "./decodeUserOperation";

const SENDER = getAddress("0x5e4de00000000000000000000000000000000001");
const OTHER = getAddress("0x07e4000000000000000000000000000000000002");
const BOB = getAddress("0xb0b0000000000000000000000000000000000003");
const TOKEN = getAddress("0x70ce000000000000000000000000000000000004");

const execute = (target: Hex, value: bigint, data: Hex) =>
  encodeFunctionData({ abi: accountCallsAbi, functionName: "execute", args: [target, value, data] });
const executeBatch = (calls: { target: Hex; value: bigint; data: Hex }[]) =>
  encodeFunctionData({ abi: accountCallsAbi, functionName: "executeBatch", args: [calls] });
const transfer = (to: Hex, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] });

describe("decodeUserOperation", () => {
  it("execute: the one call", async () => {
    expect(
      await decodeUserOperation({ chainId: 8453, sender: SENDER, callData: execute(BOB, 5n, "0x") }),
    ).toEqual({
      kind: "userOperation",
      chainId: 8453,
      sender: SENDER,
      actions: [{ kind: "nativeTransfer", to: BOB, value: 5n }],
      warnings: [],
    });
  });

  it("executeBatch: call by call, in order", async () => {
    const decoded = await decodeUserOperation({
      chainId: 1,
      sender: SENDER,
      callData: executeBatch([
        { target: TOKEN, value: 0n, data: transfer(BOB, 1n) },
        {
          target: TOKEN,
          value: 0n,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [OTHER, maxUint256] }),
        },
        { target: BOB, value: 0n, data: "0xdeadbeef" },
      ]),
    });
    expect(decoded).toMatchObject({
      actions: [
        { kind: "erc20Transfer", to: BOB, amount: 1n },
        { kind: "tokenApprove", spender: OTHER, unlimited: true },
        { kind: "unknownCall", to: BOB, selector: "0xdeadbeef" },
      ],
      warnings: [{ kind: "unlimitedApproval", token: TOKEN, spender: OTHER }],
    });
  });

  it("nested: the sender calling itself is inline; another account's execute is its own group", async () => {
    const decoded = await decodeUserOperation({
      chainId: 1,
      sender: SENDER,
      callData: executeBatch([
        { target: SENDER, value: 0n, data: execute(BOB, 1n, "0x") },
        { target: OTHER, value: 0n, data: execute(TOKEN, 0n, transfer(BOB, 2n)) },
      ]),
    });
    expect(decoded).toMatchObject({
      actions: [
        { kind: "nativeTransfer", to: BOB, value: 1n },
        {
          kind: "accountCalls",
          account: OTHER,
          calls: [{ kind: "erc20Transfer", token: { address: TOKEN }, amount: 2n }],
        },
      ],
    });
  });

  it(`reads ${MAX_CALL_DEPTH} levels of execute; deeper is an unknown call, too deep`, async () => {
    let callData = execute(BOB, 1n, "0x");
    for (let i = 0; i < MAX_CALL_DEPTH; i++) callData = execute(SENDER, 0n, callData);
    expect(await decodeUserOperation({ chainId: 1, sender: SENDER, callData })).toMatchObject({
      actions: [{ kind: "unknownCall", to: SENDER, selector: "0xb61d27f6", reason: "tooDeep" }],
    });
    callData = execute(BOB, 1n, "0x");
    for (let i = 0; i < MAX_CALL_DEPTH - 1; i++) callData = execute(SENDER, 0n, callData);
    expect(await decodeUserOperation({ chainId: 1, sender: SENDER, callData })).toMatchObject({
      actions: [{ kind: "nativeTransfer", to: BOB, value: 1n }],
    });
  });

  it("call data that is not execute/executeBatch is an unknown call to the sender; none is nothing", async () => {
    expect(await decodeUserOperation({ chainId: 1, sender: SENDER, callData: "0x4f1ef286" })).toMatchObject({
      actions: [{ kind: "unknownCall", to: SENDER, selector: "0x4f1ef286", value: 0n }],
    });
    expect(await decodeUserOperation({ chainId: 1, sender: SENDER, callData: "0x" })).toMatchObject({
      actions: [],
    });
  });

  it("value above the threshold sums over the calls", async () => {
    const callData = executeBatch([
      { target: BOB, value: 6n, data: "0x" },
      { target: OTHER, value: 6n, data: "0x1234abcd" },
    ]);
    expect(
      await decodeUserOperation({ chainId: 1, sender: SENDER, callData }, { valueThreshold: 10n }),
    ).toMatchObject({
      warnings: [{ kind: "valueAboveThreshold", value: 12n, threshold: 10n }],
    });
  });

  it("EntryPoint v0.8's PackedUserOperation typed data (viem's getUserOperationTypedData) is the same user operation", async () => {
    const callData = execute(TOKEN, 0n, transfer(BOB, 3n));
    const typedData = getUserOperationTypedData({
      chainId: 8453,
      entryPointAddress: entryPoint08Address,
      userOperation: {
        sender: SENDER,
        nonce: 0n,
        callData,
        callGasLimit: 1n,
        verificationGasLimit: 1n,
        preVerificationGas: 1n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
        signature: "0x",
      },
    });
    expect(await decodeTypedData(typedData)).toEqual(
      await decodeUserOperation({ chainId: 8453, sender: SENDER, callData }),
    );
  });

  it.each([
    ["a bad sender", { chainId: 1, sender: "0x12", callData: "0x" }],
    ["non-hex call data", { chainId: 1, sender: SENDER, callData: "0xzz" }],
    ["no call data", { chainId: 1, sender: SENDER }],
    ["a chain id that is a word", { chainId: "mainnet", sender: SENDER, callData: "0x" }],
  ])("never throws: %s is unreadable", async (_, userOperation) => {
    expect(await decodeUserOperation(userOperation as never)).toMatchObject({
      kind: "unreadable",
      reason: "malformedUserOperation",
    });
  });
});
