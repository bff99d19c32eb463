import { connect, disconnect, getAccount, switchChain } from "@wagmi/core";
import type { Address } from "viem";
import { ExternalWalletError } from "../../errors/externalWallet";
import type { ConnectParams, ConnectResult, SiweSession } from "../../types/externalWallets";
import { infoOf, requireWagmi } from "../config";
import { saveSiwe } from "../storage";
import { toExternalWalletError } from "../toExternalWalletError";
import type { WalletsConfig } from "../types";

const DEFAULT_CONNECT_TIMEOUT_MS = 120_000;

/** Rejects after `ms`, or when `signal` aborts; settles with `promise` otherwise. */
function bounded<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ExternalWalletError("WALLET_CONNECTION_TIMEOUT")), ms);
    const onAbort = () =>
      reject(new ExternalWalletError("WALLET_CONNECTION_FAILED", { details: "canceled" }));
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

/**
 * Connects the wallet `connectorId` names; each step below is numbered and an attempt that fails one
 * goes no further, the state going back to what it was (connected to another wallet, or disconnected):
 *  1. the connector is configured (WalletConnect needs a project id), the chain asked for too, and the
 *     wallet is not the one already connected;
 *  2. the state says connecting, and the attempt owns it until it settles;
 *  3. the wallet connects within the timeout (or until `signal` aborts): an abandoned attempt leaves the
 *     wallet to answer, then disconnects it, and only then does the state follow wagmi's again;
 *  4. a wallet on a chain the app does not use is moved to the first configured one (or refused);
 *  5. with SIWE on, the user signs the message the service verifies, within the same bounds;
 *  6. the state says connected, and the signer's listeners hear it.
 */
export async function connectExternalWallet(
  config: WalletsConfig,
  { connectorId, chainId, signal, onDisplayUri }: ConnectParams,
): Promise<ConnectResult> {
  // 1.
  if (connectorId === "walletConnect" && !config.walletConnect)
    throw new ExternalWalletError("WALLETCONNECT_CONFIG_MISSING", {
      details:
        "give externalWallets() a walletConnect({ projectId }) of @latchkey/core/walletconnect, with your project id",
    });
  const wagmi = requireWagmi(config);
  if (chainId !== undefined && !wagmi.chains.some((c) => c.id === chainId))
    throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
  const connector = wagmi.connectors.find((c) => c.id === connectorId);
  if (!connector) throw new ExternalWalletError("PROVIDER_NOT_FOUND", { details: connectorId });
  const current = getAccount(wagmi);
  if (current.status === "connected" && current.connector?.uid === connector.uid)
    throw new ExternalWalletError("CONNECTOR_ALREADY_CONNECTED");

  // 2.
  const previous = config.getWallet();
  config.setWallet({ status: "connecting", connector: infoOf(connector) });
  const onMessage = ({ type, data }: { type: string; data?: unknown }) => {
    if (type === "display_uri" && typeof data === "string") onDisplayUri?.(data);
  };
  connector.emitter.on("message", onMessage);
  const endAttempt = config.beginAttempt();
  let settled = true;
  try {
    // 3.
    const timeout = config.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const pending = connect(wagmi, { connector, ...(chainId !== undefined ? { chainId } : {}) });
    const result = await bounded(pending, timeout, signal).catch(async (error: unknown) => {
      if (error instanceof ExternalWalletError) {
        settled = false;
        void pending
          .then(
            () => disconnect(wagmi, { connector }),
            () => {},
          )
          .catch(() => {})
          .finally(endAttempt);
        if (connector.type === "walletConnect") {
          const provider = (await connector.getProvider().catch(() => undefined)) as
            | { abortPairingAttempt?: () => void }
            | undefined;
          provider?.abortPairingAttempt?.();
        }
      }
      throw error;
    });
    // 4.
    let connectedChain = result.chainId;
    if (!wagmi.chains.some((c) => c.id === connectedChain)) {
      try {
        const target = wagmi.chains[0].id;
        await switchChain(wagmi, {
          chainId: target,
          connector,
          addEthereumChainParameter: { rpcUrls: [config.rpcUrls[target] as string] },
        });
        connectedChain = target;
      } catch (error) {
        await disconnect(wagmi, { connector }).catch(() => {});
        throw new ExternalWalletError("WALLET_CHAIN_UNSUPPORTED", { cause: error });
      }
    }
    // 5.
    const address = result.accounts[0] as Address;
    let siwe: SiweSession | undefined;
    if (config.options.siwe !== false) {
      try {
        siwe = await bounded(config.proveAddress(address, connectedChain), timeout, signal);
      } catch (error) {
        await disconnect(wagmi, { connector }).catch(() => {});
        throw error;
      }
      saveSiwe(siwe);
    }
    // 6.
    const info = infoOf(connector);
    config.setWallet({
      status: "connected",
      connector: info,
      address,
      chainId: connectedChain,
      ...(siwe ? { siwe } : {}),
    });
    config.announceConnected({ address, chainId: connectedChain, connector: info });
    return { address, chainId: connectedChain, connector: info, ...(siwe ? { siwe } : {}) };
  } catch (error) {
    // Back to the state before the attempt (spec §4): connected to another wallet, or disconnected.
    const account = getAccount(wagmi);
    if (account.status === "connecting" || account.status === "reconnecting")
      wagmi.setState((x) => ({ ...x, status: x.current ? "connected" : "disconnected" }));
    const now = getAccount(wagmi);
    config.setWallet(now.status === "connected" ? previous : { status: "disconnected" });
    throw toExternalWalletError(error);
  } finally {
    if (settled) endAttempt();
    connector.emitter.off("message", onMessage);
  }
}
