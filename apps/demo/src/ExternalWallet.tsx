import type { ExternalWalletsOptions } from "@latchkey/core";
import {
  useExternalWallet,
  useLogout,
  useSendUserOperation,
  useSwitchExternalWalletChain,
} from "@latchkey/react";
import { useState } from "react";
import { type Address, formatEther, parseEther } from "viem";

const RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";

/**
 * The dashboard of a user who signed in with an external wallet: the address and chain the wallet is on
 * (following the wallet's own changes), the service's SIWE token, chain switching, and a transaction sent
 * from the wallet.
 */
export function ExternalWalletDashboard({ wallets }: { wallets: ExternalWalletsOptions }) {
  const wallet = useExternalWallet();
  const { switchChain, isPending: switching, error: switchError } = useSwitchExternalWalletChain();
  const { sendUserOperation, sendUserOperationResult, isSendingUserOperation, error } = useSendUserOperation({
    waitForTxn: true,
  });
  const { logout } = useLogout();
  const [amount] = useState(() => parseEther("0.001"));
  const chainName = (id: number | undefined) =>
    wallets.chains?.find((c) => c.chain.id === id)?.chain.name ?? String(id);
  return (
    <main className="dashboard">
      <header className="welcome">
        <h1>Welcome</h1>
        <p className="muted">
          You signed in with {wallet.connector?.name ?? "your wallet"}. Its keys stay in the wallet.
        </p>
      </header>
      <section className="card account">
        <h3>Your wallet</h3>
        <div className="row">
          <span className="label">Address</span>
          <code data-testid="eoa-address">{wallet.address}</code>
        </div>
        <div className="row">
          <span className="label">Network</span>
          <code data-testid="eoa-chain">{chainName(wallet.chainId)}</code>
        </div>
        {wallet.siwe && (
          <div className="row">
            <span className="label">Sign-In with Ethereum</span>
            <code data-testid="eoa-siwe" title={wallet.siwe.token}>
              verified until {new Date(wallet.siwe.expiresAt).toLocaleString()}
            </code>
          </div>
        )}
      </section>
      <div className="grid">
        <section className="card">
          <h3>Network</h3>
          <p className="muted">
            Switch the wallet to another network (it adds the network if it does not know it).
          </p>
          <div className="actions">
            {wallets.chains?.map(({ chain }) => (
              <button
                key={chain.id}
                type="button"
                className="btn"
                disabled={switching || chain.id === wallet.chainId}
                onClick={() => switchChain({ chainId: chain.id })}
              >
                Use {chain.name}
              </button>
            ))}
          </div>
          {switchError && <p className="verdict bad">{switchError.message}</p>}
        </section>
        <section className="card">
          <h3>Send a transaction</h3>
          <p className="muted">
            Sends {formatEther(amount)} ETH from your wallet on {chainName(wallet.chainId)}; your wallet asks
            you to confirm.
          </p>
          <button
            type="button"
            className="btn primary"
            disabled={isSendingUserOperation}
            onClick={() => sendUserOperation({ uo: { target: RECIPIENT, value: amount } })}
          >
            {isSendingUserOperation ? "Sending…" : "Send transaction"}
          </button>
          {sendUserOperationResult && (
            <p className="verdict ok">
              Landed: <code data-testid="eoa-tx">{sendUserOperationResult.hash}</code>
            </p>
          )}
          {error && <p className="verdict bad">{error.message}</p>}
        </section>
      </div>
      <p className="muted center">
        <button type="button" className="linkish" onClick={() => logout()}>
          Disconnect
        </button>
      </p>
    </main>
  );
}
