import {
  getSmartAccountClient,
  type Signer,
  SmartAccountError,
  sendUserOperation,
  waitForUserOperationTransaction,
} from "@latchkey/core";
import { encodeFunctionData, type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainStack, counterAbi, smartAccountChainOf } from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// One chain (hardhat + EntryPoint v0.8 + SimpleAccountFactory + alto) and one service for the file.
let chain: ChainStack;
let svc: TestService;
let signer: Signer;

const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
const add = (n: bigint) => encodeFunctionData({ abi: counterAbi, functionName: "add", args: [n] });
const counterValue = () =>
  chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });

beforeAll(async () => {
  [chain, svc] = await Promise.all([sharedChainStack(), startService()]);
  const chains = [smartAccountChainOf(chain)];
  // The 4337 option (a LatchkeySimpleAccount); 7702 accounts, the default: node-smart-account-7702.test.ts.
  signer = await signInWithOtp(svc, "smart@example.com", { chains, smartAccount: { kind: "4337" } });
});
afterAll(async () => {
  await Promise.all([chain?.stop(), svc?.close()]);
});

describe("the user's smart account", () => {
  it("has a counterfactual address before its first operation, owned by the embedded wallet", async () => {
    const client = await getSmartAccountClient(signer);
    const address = client.account.address;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await chain.publicClient.getCode({ address })).toBeUndefined();
    // The same client (and address) on a second call; the factory agrees on the address.
    expect((await getSmartAccountClient(signer)).account.address).toBe(address);
    const owner = signer.getState().user?.address as Hex;
    expect(
      await chain.publicClient.readContract({
        address: chain.latchkeyAccountFactory,
        abi: [
          {
            type: "function",
            name: "getAddress",
            stateMutability: "view",
            inputs: [
              { name: "owner", type: "address" },
              { name: "salt", type: "uint256" },
            ],
            outputs: [{ type: "address" }],
          },
        ] as const,
        functionName: "getAddress",
        args: [owner, 0n],
      }),
    ).toBe(address);
  });

  it("fails with a clear error while the account has no funds and no sponsorship", async () => {
    const error = await sendUserOperation(signer, { uo: { target: chain.counter, data: increment } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SmartAccountError);
    expect((error as SmartAccountError).code).toBe("INSUFFICIENT_FUNDS");
    expect((error as SmartAccountError).message).toMatch(/no funds to pay for gas/);
  });

  it("sends a single call (deploying the account), waits for the transaction, and the counter moves", async () => {
    const client = await getSmartAccountClient(signer);
    await chain.fund(client.account.address, parseEther("1"));
    const before = await counterValue();
    const sent = await sendUserOperation(signer, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    const { hash, request } = sent;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(request.sender).toBe(client.account.address);
    expect(request.factory).toBeDefined(); // the first operation deploys the account
    expect(await chain.publicClient.getCode({ address: client.account.address })).toMatch(/^0x.+/);
    expect(await counterValue()).toBe(before + 1n);
  });

  it("sends a batch as one atomic operation, and hex call data as it is", async () => {
    const before = await counterValue();
    const batch = await sendUserOperation(signer, {
      uo: [
        { target: chain.counter, data: increment },
        { target: chain.counter, data: add(5n) },
      ],
    });
    expect(batch.hash).toMatch(/^0x[0-9a-f]{64}$/);
    if (batch.kind !== "userOperation") throw new Error("expected a user operation");
    expect(batch.request.factory).toBeUndefined();
    const tx = await waitForUserOperationTransaction(signer, { hash: batch.hash });
    expect((await chain.publicClient.getTransactionReceipt({ hash: tx })).status).toBe("success");
    expect(await counterValue()).toBe(before + 6n);

    const client = await getSmartAccountClient(signer);
    const callData = await client.account.encodeCalls([{ to: chain.counter, data: add(10n) }]);
    await sendUserOperation(signer, { uo: callData, waitForTxn: true });
    expect(await counterValue()).toBe(before + 16n);
  });

  it("a user operation whose call the app's signing policy denies is refused, in a batch too; nothing lands", async () => {
    // The dev app's policy refuses anything sent to the burn address (dev-no-burn): the service reads the
    // user operation (EIP-712 PackedUserOperation) it is asked to sign, and refuses its call.
    const BURN = "0x000000000000000000000000000000000000dEaD";
    const before = await counterValue();
    for (const uo of [
      { target: BURN as Hex, data: "0x" as Hex, value: 1n },
      [
        { target: chain.counter, data: increment },
        { target: BURN as Hex, data: "0x" as Hex },
      ],
    ]) {
      const error = await sendUserOperation(signer, { uo, waitForTxn: true }).catch((e: unknown) => e);
      expect(String((error as Error).message)).toContain('Refused by signing policy rule "dev-no-burn"');
    }
    expect(await counterValue()).toBe(before);
    // An allowed one still signs and lands.
    await sendUserOperation(signer, { uo: { target: chain.counter, data: increment }, waitForTxn: true });
    expect(await counterValue()).toBe(before + 1n);
  });

  it("a reverting call fails with its revert reason", async () => {
    const error = await sendUserOperation(signer, {
      uo: { target: chain.counter, data: encodeFunctionData({ abi: counterAbi, functionName: "fail" }) },
      waitForTxn: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmartAccountError);
    expect((error as SmartAccountError).code).toBe("USER_OPERATION_REVERTED");
    expect((error as SmartAccountError).message).toContain("Counter: fail");
  });

  it("a failed wait carries the operation's hash", async () => {
    const hash = `0x${"ab".repeat(32)}` as Hex;
    const error = await waitForUserOperationTransaction(signer, { hash, timeout: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SmartAccountError);
    expect((error as SmartAccountError).code).toBe("WAIT_FOR_TRANSACTION_FAILED");
    expect((error as SmartAccountError).userOperationHash).toBe(hash);
  });

  it("a wait that fails after sending carries the signed operation that was sent", async () => {
    const client = await getSmartAccountClient(signer);
    const error = await sendUserOperation(signer, {
      uo: { target: chain.counter, data: add(7n) },
      waitForTxn: true,
      timeout: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmartAccountError);
    const failed = error as SmartAccountError;
    expect(failed.code).toBe("WAIT_FOR_TRANSACTION_FAILED");
    expect(failed.request?.sender).toBe(client.account.address);
    expect(failed.request?.callData).toContain(add(7n).slice(2));
    expect(failed.request?.signature).toMatch(/^0x[0-9a-f]{130,}$/i);
    expect(failed.userOperationHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The operation was sent: its transaction still lands.
    await waitForUserOperationTransaction(signer, { hash: failed.userOperationHash as Hex });
  });

  it("without a configured chain, sending fails with the missing-client error; an unknown chain id with 'Chain not configured'", async () => {
    const bare = await signInWithOtp(svc, "nochain@example.com");
    const missing = await sendUserOperation(bare, { uo: { target: chain.counter, data: increment } }).catch(
      (e: unknown) => e,
    );
    expect((missing as SmartAccountError).code).toBe("SMART_ACCOUNT_CLIENT_MISSING");
    expect((missing as SmartAccountError).message).toMatch(/^Missing client/);
    const unknown = await sendUserOperation(signer, { uo: "0x", chainId: 1 }).catch((e: unknown) => e);
    expect((unknown as SmartAccountError).code).toBe("CHAIN_NOT_CONFIGURED");
    expect((unknown as SmartAccountError).message).toMatch(/^Chain not configured/);
  });
});
