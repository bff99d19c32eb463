import { useSendUserOperation, useSmartAccountClient } from "@latchkey/react";
import { useCallback, useEffect, useState } from "react";
import { type Address, createPublicClient, encodeFunctionData, formatEther, http, parseAbi } from "viem";
import type { DemoChain } from "./demoChain";

const counterAbi = parseAbi([
  "function number() view returns (uint256)",
  "function increment()",
  "function add(uint256 amount)",
]);

/** The user's smart account: its address, and sponsored user operations that change a counter on chain. */
export function SmartAccountCard({ demo }: { demo: DemoChain }) {
  const { client, address, isLoadingClient, error: clientError } = useSmartAccountClient();
  const kind = client?.smartAccountKind;
  const { sendUserOperationAsync, sendUserOperationResult, isSendingUserOperation, error } =
    useSendUserOperation({ waitForTxn: true });
  const [publicClient] = useState(() =>
    createPublicClient({ chain: demo.config.chain, transport: http(demo.config.rpcUrl) }),
  );
  const [count, setCount] = useState<bigint | null>(null);
  const [balance, setBalance] = useState<bigint | null>(null);
  const refresh = useCallback(
    async (account: Address | undefined) => {
      setCount(
        await publicClient.readContract({ address: demo.counter, abi: counterAbi, functionName: "number" }),
      );
      if (account) setBalance(await publicClient.getBalance({ address: account }));
    },
    [publicClient, demo.counter],
  );
  useEffect(() => {
    void refresh(address).catch(() => {});
  }, [refresh, address]);

  const send = async (kind: "single" | "batch") => {
    const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
    const addTen = encodeFunctionData({ abi: counterAbi, functionName: "add", args: [10n] });
    await sendUserOperationAsync({
      uo:
        kind === "single"
          ? { target: demo.counter, data: increment }
          : [
              { target: demo.counter, data: increment },
              { target: demo.counter, data: addTen },
            ],
    });
    await refresh(address);
  };

  return (
    <section className="card smart-account">
      <h3>Smart account</h3>
      <p className="muted">
        {kind === "4337"
          ? "An ERC-4337 account (SimpleAccount, EntryPoint v0.8) owned by your embedded wallet."
          : "Your embedded wallet's own address, delegated by EIP-7702 to Simple7702Account (EntryPoint v0.8) on its first operation."}
        {demo.config.policyId ? " Gas is paid by the app's sponsorship policy: you need no ETH." : ""}
      </p>
      <div className="row">
        <span className="label">Kind</span>
        <code data-testid="smart-account-kind">
          {kind === undefined
            ? "…"
            : kind === "7702"
              ? "EIP-7702 (Simple7702Account)"
              : "ERC-4337 (SimpleAccount)"}
        </code>
      </div>
      <div className="row">
        <span className="label">Address</span>
        <code data-testid="smart-account-address">{address ?? (isLoadingClient ? "…" : "—")}</code>
      </div>
      <div className="row">
        <span className="label">Balance</span>
        <code data-testid="smart-account-balance">
          {balance === null ? "…" : `${formatEther(balance)} ETH`}
        </code>
      </div>
      <div className="row">
        <span className="label">Counter</span>
        <code data-testid="counter-value">{count === null ? "…" : count.toString()}</code>
      </div>
      <div className="actions">
        <button
          type="button"
          className="btn primary"
          disabled={!address || isSendingUserOperation}
          onClick={() => void send("single").catch(() => {})}
        >
          {isSendingUserOperation ? "Sending…" : "Increment (sponsored)"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!address || isSendingUserOperation}
          onClick={() => void send("batch").catch(() => {})}
        >
          Batch: +1 and +10
        </button>
      </div>
      {sendUserOperationResult && (
        <div className="verdict ok" data-testid="user-operation-result">
          ✓ Included in transaction <code data-testid="transaction-hash">{sendUserOperationResult.hash}</code>
        </div>
      )}
      {(error ?? clientError) && (
        <div className="verdict bad" data-testid="user-operation-error">
          {(error ?? clientError)?.message}
        </div>
      )}
    </section>
  );
}
