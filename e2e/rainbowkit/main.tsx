// The e2e RainbowKit page: a dapp as its developer would write it with React, wagmi, RainbowKit and the
// Latchkey wallet in RainbowKit's list (latchkeyWallet). One signer is shared by <LatchkeyProvider> (the
// sign-in modal) and wagmi. The signer has no `chains`: no bundler, the plain wallet (the user's EOA), on
// the wagmi config's chain through its http() transport. RainbowKit's ConnectButton → "Latchkey" opens the
// Latchkey modal (email code): <LatchkeyProvider signer={signer}> lends the signer its modal, so
// latchkeyWallet needs no `requestAccounts`. "Sign message" signs with wagmi's signMessage and verifies with viem;
// "Send 0.01 ETH" sends a plain transaction with wagmi's sendTransaction and waits for its receipt.

import "@rainbow-me/rainbowkit/styles.css";
import { createSigner } from "@latchkey/core";
import { latchkeyWallet } from "@latchkey/core/rainbowkit";
import { AuthModal, LatchkeyProvider, useUser } from "@latchkey/react";
import { ConnectButton, connectorsForWallets, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { type Address, createPublicClient, defineChain, type Hex, parseEther } from "viem";
import { createConfig, http, useAccount, useSendTransaction, useSignMessage, WagmiProvider } from "wagmi";

interface E2eConfig {
  serviceUrl: string;
  devApiKey: string;
  chain: { chainId: number; rpcUrl: string };
}
const { serviceUrl, devApiKey, chain: e2eChain } = (window as unknown as { LK_E2E: E2eConfig }).LK_E2E;
const recipient = new URLSearchParams(location.search).get("recipient") as Address;

const chain = defineChain({
  id: e2eChain.chainId,
  name: "Local chain",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [e2eChain.rpcUrl] } },
});
const publicClient = createPublicClient({ chain, transport: http(e2eChain.rpcUrl) });

// One signer for both <LatchkeyProvider> and wagmi; no chains, no bundler: the plain wallet.
const signer = createSigner({ baseUrl: serviceUrl, apiKey: devApiKey });

// Only the Latchkey wallet: no WalletConnect wallet, so nothing phones home (the projectId is unused).
const connectors = connectorsForWallets(
  [{ groupName: "Recommended", wallets: [latchkeyWallet({ signer })] }],
  { appName: "Latchkey e2e", projectId: "unused" },
);
const config = createConfig({
  chains: [chain],
  connectors,
  transports: { [chain.id]: http(e2eChain.rpcUrl) },
});
const queryClient = new QueryClient();

function App() {
  const account = useAccount();
  const user = useUser();
  const { signMessageAsync } = useSignMessage();
  const { sendTransactionAsync } = useSendTransaction();
  const [error, setError] = useState<string>();
  const [signed, setSigned] = useState<{ signature: Hex; valid: boolean }>();
  const [sent, setSent] = useState<{ hash: Hex; status: string }>();
  const run = (f: () => Promise<void>) => () => {
    setError(undefined);
    f().catch((e: { shortMessage?: string; message: string }) => setError(e.shortMessage ?? e.message));
  };
  const message = "Hello from the RainbowKit e2e dapp";

  const onSign = run(async () => {
    const signature = await signMessageAsync({ message });
    const valid = await publicClient.verifyMessage({
      address: account.address as Address,
      message,
      signature,
    });
    setSigned({ signature, valid });
  });

  const onSend = run(async () => {
    const hash = await sendTransactionAsync({ to: recipient, value: parseEther("0.01") });
    setSent({ hash, status: "pending" });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    setSent({ hash, status: receipt.status });
  });

  return (
    <main>
      <h1>RainbowKit dapp</h1>
      <ConnectButton />
      <p>
        wagmi: <span data-testid="wagmi-status">{account.status}</span>{" "}
        <code data-testid="wagmi-address">{account.address ?? ""}</code> via{" "}
        <span data-testid="wagmi-connector">{account.connector?.id ?? ""}</span>
      </p>
      <p>
        Latchkey user: <code data-testid="user-address">{user?.address ?? ""}</code>
      </p>
      <button type="button" onClick={onSign} disabled={account.status !== "connected"}>
        Sign message
      </button>
      {signed && (
        <p>
          <code data-testid="signature">{signed.signature}</code>{" "}
          <span data-testid="signature-valid">{String(signed.valid)}</span>
        </p>
      )}
      <button type="button" onClick={onSend} disabled={account.status !== "connected"}>
        Send 0.01 ETH
      </button>
      {sent && (
        <p>
          <code data-testid="tx-hash">{sent.hash}</code> <span data-testid="tx-status">{sent.status}</span>
        </p>
      )}
      {error && <p data-testid="error">{error}</p>}
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider config={{ serviceUrl, apiKey: devApiKey }} signer={signer}>
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <RainbowKitProvider>
          <App />
          <AuthModal />
        </RainbowKitProvider>
      </QueryClientProvider>
    </WagmiProvider>
  </LatchkeyProvider>,
);
