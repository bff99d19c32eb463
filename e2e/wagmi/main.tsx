// The e2e wagmi page: a dapp as its developer would write it with @wagmi/core and the latchkey() connector.
// "Connect wallet" is wagmi's connect(); while nobody is signed in the connector's `requestAccounts` opens
// the Latchkey modal (email code) and connect goes on once the user is in. "Sign in with Ethereum" signs
// an EIP-4361 message with wagmi's signMessage and verifies it with viem against the chain; "Send batch"
// sends two counter increments with wagmi's sendCalls (EIP-5792), paid by the service's paymaster through
// the ERC-7677 `paymasterService` capability, and waits for the batch with waitForCallsStatus.

import { createSigner } from "@latchkey/core";
import { latchkey } from "@latchkey/core/wagmi";
import { AuthModal, LatchkeyProvider, useAuthModal, useUser } from "@latchkey/react";
import {
  connect,
  createConfig,
  getAccount,
  http,
  sendCalls,
  signMessage,
  waitForCallsStatus,
  watchAccount,
} from "@wagmi/core";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { type Address, createPublicClient, defineChain, encodeFunctionData, type Hex, parseAbi } from "viem";
import { createSiweMessage, generateSiweNonce, verifySiweMessage } from "viem/siwe";

interface E2eConfig {
  serviceUrl: string;
  devApiKey: string;
  chain: { chainId: number; rpcUrl: string; bundlerUrl: string; counter: Address; policyId: string };
}
const { serviceUrl, devApiKey, chain: e2eChain } = (window as unknown as { LK_E2E: E2eConfig }).LK_E2E;

const chain = defineChain({
  id: e2eChain.chainId,
  name: "Local chain",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [e2eChain.rpcUrl] } },
});
const publicClient = createPublicClient({ chain, transport: http(e2eChain.rpcUrl) });

// No `policyId` on the chain: this dapp asks for sponsorship per batch, with the paymasterService capability.
const signer = createSigner({
  baseUrl: serviceUrl,
  apiKey: devApiKey,
  chains: [{ chain, rpcUrl: e2eChain.rpcUrl, bundlerUrl: e2eChain.bundlerUrl }],
});

/** The modal, as `requestAccounts` opens it: set by <ModalBridge> inside the provider. */
const modal: { open?: () => void; closed: Set<() => void> } = { closed: new Set() };

/** While signed out, wagmi's connect() waits here: the modal opens; signing in resolves, closing it rejects. */
const requestAccounts = () =>
  new Promise<void>((resolve, reject) => {
    const done = () => {
      offConnected();
      modal.closed.delete(onClosed);
    };
    const offConnected = signer.on("connected", () => {
      done();
      resolve();
    });
    const onClosed = () => {
      done();
      reject(new Error("The sign-in modal was closed"));
    };
    modal.closed.add(onClosed);
    modal.open?.();
  });

const config = createConfig({
  chains: [chain],
  connectors: [latchkey({ signer, requestAccounts })],
  transports: { [chain.id]: http(e2eChain.rpcUrl) },
});

const counterAbi = parseAbi(["function increment()"]);
const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });

/** The Latchkey code (e.g. "INSUFFICIENT_FUNDS") under a wagmi/viem error: the provider's `data.code`. */
function latchkeyCodeOf(error: unknown): string {
  for (let e = error; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { data?: { code?: unknown } }).data?.code;
    if (typeof code === "string") return code;
  }
  return "";
}

function ModalBridge() {
  const { isOpen, openAuthModal } = useAuthModal();
  useEffect(() => {
    modal.open = () => openAuthModal();
  }, [openAuthModal]);
  useEffect(() => {
    if (!isOpen) for (const listener of [...modal.closed]) listener();
  }, [isOpen]);
  return null;
}

/** wagmi's account, followed (getAccount answers a new object each time: kept in state, not a snapshot). */
function useWagmiAccount() {
  const [account, setAccount] = useState(() => getAccount(config));
  useEffect(() => watchAccount(config, { onChange: setAccount }), []);
  return account;
}

function App() {
  const account = useWagmiAccount();
  const user = useUser();
  const [error, setError] = useState<{ message: string; code: string }>();
  const [siwe, setSiwe] = useState<{ message: string; signature: Hex; valid: boolean }>();
  const [batch, setBatch] = useState<{ id: string; status: string; transactionHash?: Hex }>();
  const run = (f: () => Promise<void>) => () => {
    setError(undefined);
    f().catch((e: { shortMessage?: string; message: string }) =>
      setError({ message: e.shortMessage ?? e.message, code: latchkeyCodeOf(e) }),
    );
  };

  const onConnect = run(async () => {
    const connector = config.connectors[0]!;
    await connect(config, { connector });
  });

  const onSiwe = run(async () => {
    const address = account.address as Address;
    const message = createSiweMessage({
      address,
      chainId: chain.id,
      domain: location.host,
      uri: location.origin,
      nonce: generateSiweNonce(),
      version: "1",
      statement: "Sign in to the wagmi e2e dapp.",
    });
    const signature = await signMessage(config, { message });
    const valid = await verifySiweMessage(publicClient, {
      message,
      signature,
      address,
      domain: location.host,
    });
    setSiwe({ message, signature, valid });
  });

  const sendBatch = (sponsored: boolean) =>
    run(async () => {
      const { id } = await sendCalls(config, {
        calls: [
          { to: e2eChain.counter, data: increment },
          { to: e2eChain.counter, data: increment },
        ],
        // ERC-7677: the service's paymaster (its /rpc/v1) pays under the app's policy.
        ...(sponsored
          ? {
              capabilities: {
                paymasterService: { url: `${serviceUrl}/rpc/v1`, context: { policyId: e2eChain.policyId } },
              },
            }
          : {}),
      });
      setBatch({ id, status: "pending" });
      const status = await waitForCallsStatus(config, { id, pollingInterval: 200, timeout: 60_000 });
      setBatch({ id, status: status.status ?? "", transactionHash: status.receipts?.[0]?.transactionHash });
    });

  return (
    <main>
      <h1>wagmi dapp</h1>
      <p>
        wagmi: <span data-testid="wagmi-status">{account.status}</span>{" "}
        <code data-testid="wagmi-address">{account.address ?? ""}</code> on chain{" "}
        <span data-testid="wagmi-chain">{account.chainId ?? ""}</span> via{" "}
        <span data-testid="wagmi-connector">{account.connector?.id ?? ""}</span>
      </p>
      <p>
        Latchkey user: <code data-testid="user-address">{user?.address ?? ""}</code>
      </p>
      <button type="button" onClick={onConnect} disabled={account.status === "connected"}>
        Connect wallet
      </button>
      <button type="button" onClick={onSiwe} disabled={account.status !== "connected"}>
        Sign in with Ethereum
      </button>
      {siwe && (
        <div data-testid="siwe">
          <pre data-testid="siwe-message">{siwe.message}</pre>
          <code data-testid="siwe-signature">{siwe.signature}</code>
          <p data-testid="siwe-valid">{String(siwe.valid)}</p>
        </div>
      )}
      <button type="button" onClick={sendBatch(true)} disabled={account.status !== "connected"}>
        Send batch (sponsored)
      </button>
      <button type="button" onClick={sendBatch(false)} disabled={account.status !== "connected"}>
        Send batch (unsponsored)
      </button>
      {batch && (
        <p>
          Batch <code data-testid="batch-id">{batch.id}</code>:{" "}
          <span data-testid="batch-status">{batch.status}</span>{" "}
          <code data-testid="batch-transaction">{batch.transactionHash ?? ""}</code>
        </p>
      )}
      {error && (
        <p data-testid="error">
          {error.message} <code data-testid="error-code">{error.code}</code>
        </p>
      )}
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider config={{ serviceUrl, apiKey: devApiKey }} signer={signer}>
    <ModalBridge />
    <App />
    <AuthModal />
  </LatchkeyProvider>,
);
