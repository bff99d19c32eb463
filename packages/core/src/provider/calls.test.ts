import { describe, expect, it } from "vitest";
import { SignerError } from "../errors";
import { SmartAccountError } from "../errors/smartAccount";
import { CallsStatusCode, callsStatusOf, createCallsRegistry } from "./calls";
import { ProviderRpcError, toProviderRpcError } from "./errors";

const hash = `0x${"ab".repeat(32)}` as const;
const receipt = (success: boolean) => ({
  success,
  logs: [{ address: `0x${"11".repeat(20)}` as const, data: "0x" as const, topics: [hash] }],
  receipt: {
    blockHash: hash,
    blockNumber: "0x10" as const,
    gasUsed: "0x5208" as const,
    transactionHash: hash,
  },
});

describe("EIP-5792 batch status", () => {
  it("is pending without a receipt, an off-chain failure when dropped, confirmed or reverted with one", () => {
    expect(callsStatusOf("id", 31337, null)).toEqual({
      version: "2.0.0",
      id: "id",
      chainId: "0x7a69",
      atomic: true,
      status: CallsStatusCode.PENDING,
    });
    expect(callsStatusOf("id", 31337, null, true).status).toBe(400);
    const confirmed = callsStatusOf("id", 31337, receipt(true));
    expect(confirmed.status).toBe(200);
    expect(confirmed.receipts).toEqual([
      {
        logs: [{ address: `0x${"11".repeat(20)}`, data: "0x", topics: [hash] }],
        status: "0x1",
        blockHash: hash,
        blockNumber: "0x10",
        gasUsed: "0x5208",
        transactionHash: hash,
      },
    ]);
    const reverted = callsStatusOf("id", 31337, receipt(false));
    expect(reverted.status).toBe(500);
    expect(reverted.receipts?.[0]?.status).toBe("0x0");
  });

  it("keeps ids unique (5720), and forgets one whose batch was not sent", () => {
    const calls = createCallsRegistry();
    calls.reserve("a", 1);
    expect(calls.get("a")).toEqual({ chainId: 1 });
    expect(() => calls.reserve("a", 1)).toThrow(expect.objectContaining({ code: 5720 }));
    calls.sent("a", hash);
    expect(calls.get("a")).toEqual({ chainId: 1, userOperationHash: hash });
    calls.reserve("b", 1);
    calls.release("b");
    expect(calls.get("b")).toBeUndefined();
  });
});

describe("provider errors", () => {
  it("carry EIP-1193 / EIP-1474 codes for Latchkey errors, with the Latchkey code in data", () => {
    expect(toProviderRpcError(new SignerError("NOT_AUTHENTICATED")).code).toBe(4100);
    expect(toProviderRpcError(new SmartAccountError("SMART_ACCOUNT_CLIENT_MISSING")).code).toBe(4900);
    expect(toProviderRpcError(new SmartAccountError("CHAIN_NOT_CONFIGURED")).code).toBe(4901);
    const funds = toProviderRpcError(new SmartAccountError("INSUFFICIENT_FUNDS"));
    expect(funds).toMatchObject({ code: -32003, data: { code: "INSUFFICIENT_FUNDS" } });
    expect(funds.cause).toBeInstanceOf(SmartAccountError);
    const wait = toProviderRpcError(
      new SmartAccountError("WAIT_FOR_TRANSACTION_FAILED", { userOperationHash: hash, details: "timeout" }),
    );
    expect(wait).toMatchObject({
      code: -32603,
      data: { code: "WAIT_FOR_TRANSACTION_FAILED", userOperationHash: hash, details: "timeout" },
    });
    const same = new ProviderRpcError(4001, "no");
    expect(toProviderRpcError(same)).toBe(same);
    expect(toProviderRpcError(new Error("boom"))).toMatchObject({ code: -32603, message: "boom" });
  });
});
