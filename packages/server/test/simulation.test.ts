import { createTokenInfoReader } from "@latchkey/decoder";
import { type Address, encodeFunctionData, erc20Abi, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../../../test-support/chain/index.js";
import { sharedChainStack } from "../../../test-support/chain/shared.js";
import { deployTestToken, mintTestToken } from "../../../test-support/chain/testToken.js";
import { httpJsonRpc, simulateCalls } from "../src/simulation/simulate.js";

// Simulation against the dev chain (hardhat 2: no eth_simulateV1, so debug_traceCall's struct logs).
describe("simulateCalls on the dev chain", () => {
  let stack: ChainStack;
  let token: Address;
  const user = "0x00000000000000000000000000000000000a11ce" as Address;
  const bob = "0x0000000000000000000000000000000000000b0b" as Address;

  beforeAll(async () => {
    stack = await sharedChainStack({ bundler: false });
    token = await deployTestToken(stack.publicClient, { name: "Test USD", symbol: "TUSD", decimals: 6 });
    await mintTestToken(stack.publicClient, token, user, 5_000_000n);
    await stack.fund(user, parseEther("1"));
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const rpc = () => httpJsonRpc(stack.rpcUrl);
  const tokens = () =>
    createTokenInfoReader({
      call: async ({ to, data }) =>
        ((await stack.publicClient.call({ to, data })).data ?? "0x") as `0x${string}`,
    });
  const transfer = (amount: bigint) =>
    encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [bob, amount] });

  it("shows an ERC-20 transfer as the sender's balance change, with the token's symbol and decimals", async () => {
    const simulation = await simulateCalls({
      rpc: rpc(),
      chainId: stack.chainId,
      calls: [{ from: user, to: token, data: transfer(1_500_000n), value: 0n }],
      account: user,
      tokens: tokens(),
    });
    expect(simulation).toEqual({
      status: "ok",
      reverts: false,
      method: "debug_traceCall",
      balanceChanges: [{ asset: token.toLowerCase(), symbol: "TUSD", decimals: 6, delta: "-1500000" }],
    });
  });

  it("shows a native transfer as a native outflow", async () => {
    const simulation = await simulateCalls({
      rpc: rpc(),
      chainId: stack.chainId,
      calls: [{ from: user, to: bob, data: "0x", value: parseEther("0.25") }],
      account: user,
    });
    expect(simulation).toMatchObject({
      status: "ok",
      reverts: false,
      balanceChanges: [{ asset: "native", delta: (-parseEther("0.25")).toString() }],
    });
  });

  it("says a transfer above the balance reverts, and why", async () => {
    const simulation = await simulateCalls({
      rpc: rpc(),
      chainId: stack.chainId,
      calls: [{ from: user, to: token, data: transfer(9_000_000n), value: 0n }],
      account: user,
      tokens: tokens(),
    });
    expect(simulation).toEqual({
      status: "ok",
      reverts: true,
      revertReason: "TestToken: transfer amount exceeds balance",
      balanceChanges: [],
      method: "debug_traceCall",
    });
  });

  it("degrades to unavailable when the node does not answer in time, or cannot be reached", async () => {
    const { createServer } = await import("node:http");
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = performance.now();
      const simulation = await simulateCalls({
        rpc: httpJsonRpc(`http://127.0.0.1:${port}`),
        chainId: stack.chainId,
        calls: [{ from: user, to: token, data: transfer(1n), value: 0n }],
        account: user,
        timeoutMs: 300,
      });
      expect(simulation).toMatchObject({ status: "unavailable", reason: "timeout" });
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
    const refused = await simulateCalls({
      rpc: httpJsonRpc(`http://127.0.0.1:${port}`),
      chainId: stack.chainId,
      calls: [{ from: user, to: token, data: transfer(1n), value: 0n }],
      account: user,
    });
    expect(refused).toMatchObject({ status: "unavailable", reason: "error" });
  });
});
