// Loaded on first use (externalWallets/load.ts imports it with `import()`): wagmi's store and connectors,
// viem's wallet actions and the SIWE message stay out of an app's initial JavaScript.
import {
  type Config,
  type Connector,
  connect,
  createConfig,
  createStorage,
  disconnect,
  getAccount,
  http,
  reconnect,
  sendTransaction,
  switchChain,
  waitForTransactionReceipt,
} from "@wagmi/core";
import type { Address, Chain } from "viem";
import { ExternalWalletError } from "../errors/externalWallet";
import type { SignerBase } from "../signer/types";
import { signInWithEthereum } from "./siwe";
import { readSiwe, saveSiwe, WALLET_STORAGE_KEY, walletStorage } from "./storage";
import { toExternalWalletError } from "./toExternalWalletError";
import type {
  ExternalWalletChain,
  ExternalWalletState,
  ExternalWalletsRuntime,
  SiweSession,
  WalletConnectorInfo,
} from "./types";
import { latchkeyWalletConnect } from "./walletConnect";

const DEFAULT_CONNECT_TIMEOUT_MS = 120_000;

function chainsOf(signer: SignerBase): ExternalWalletChain[] {
  const { options } = signer._internal;
  return [
    ...(options.externalWallets?.chains ??
      (options.chains ?? []).map((c) => ({ chain: c.chain, rpcUrl: c.rpcUrl }))),
  ];
}

function infoOf(connector: Connector): WalletConnectorInfo {
  return {
    id: connector.id,
    name: connector.name,
    ...(connector.icon ? { icon: connector.icon } : {}),
    type: connector.type === "walletConnect" ? "walletConnect" : "injected",
  };
}

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
 * The external wallets of one signer: a wagmi config (EIP-6963 wallets discovered by wagmi, WalletConnect
 * when configured) whose account and chain are mirrored into the signer's store as `externalWallet`.
 */
export function createExternalWalletsRuntime(signer: SignerBase): ExternalWalletsRuntime {
  const { options } = signer._internal;
  const walletOptions = options.externalWallets ?? {};
  const chains = chainsOf(signer);
  const rpcUrls: Record<number, string> = Object.fromEntries(
    chains.map((c) => [c.chain.id, c.rpcUrl ?? c.chain.rpcUrls.default.http[0] ?? ""]),
  );
  const walletConnect = walletOptions.walletConnect?.projectId
    ? latchkeyWalletConnect({ ...walletOptions.walletConnect, rpcUrls })
    : undefined;
  const config = chains.length
    ? createConfig({
        chains: chains.map((c) => c.chain) as [Chain, ...Chain[]],
        transports: Object.fromEntries(chains.map((c) => [c.chain.id, http(rpcUrls[c.chain.id])])),
        connectors: walletConnect ? [walletConnect] : [],
        multiInjectedProviderDiscovery: true,
        storage: createStorage({ storage: walletStorage, key: WALLET_STORAGE_KEY }),
        // Not `ssr`: it would leave out the wallets announced so far (the config is made in a browser, on use).
      })
    : undefined;

  const setWallet = (patch: Partial<ExternalWalletState> | ExternalWalletState, replace = false) =>
    signer.store.setState((s) => ({
      externalWallet: replace ? (patch as ExternalWalletState) : { ...s.externalWallet, ...patch },
    }));

  // Attempts in progress own the state until they settle (connected only once SIWE is done too), and so
  // does one abandoned (timed out, canceled) until the wallet answers and is disconnected again.
  let attempting = 0;
  // The wallet's account and chain as wagmi sees them, mirrored at once (a change in the wallet included).
  config?.subscribe(
    (s) => s,
    () => {
      if (attempting > 0) return;
      const account = getAccount(config);
      const previous = signer.store.getState().externalWallet;
      if (account.status === "connected" || account.status === "reconnecting") {
        if (account.status === "reconnecting" && !account.address) {
          setWallet({ status: "reconnecting" }, true);
          return;
        }
        // A proof is for one address: another account has to sign in again.
        const siwe = previous.siwe && previous.siwe.address === account.address ? previous.siwe : undefined;
        if (!siwe && previous.siwe) saveSiwe(undefined);
        setWallet(
          {
            status: account.status,
            ...(account.connector ? { connector: infoOf(account.connector) } : {}),
            ...(account.address ? { address: account.address } : {}),
            ...(account.chainId ? { chainId: account.chainId } : {}),
            ...(siwe ? { siwe } : {}),
          },
          true,
        );
      } else if (account.status === "disconnected" && previous.status !== "connecting") {
        setWallet({ status: "disconnected" }, true);
      }
    },
  );

  const requireConfig = (): Config => {
    if (!config) throw new ExternalWalletError("NO_CHAINS_ON_CONNECTOR");
    return config;
  };

  const siweEnabled = walletOptions.siwe !== false;

  const runtime: ExternalWalletsRuntime = {
    config,

    async connect({ connectorId, chainId, signal, onDisplayUri }) {
      if (connectorId === "walletConnect" && !walletConnect)
        throw new ExternalWalletError("WALLETCONNECT_CONFIG_MISSING", {
          details: "set externalWallets.walletConnect.projectId",
        });
      const cfg = requireConfig();
      if (chainId !== undefined && !cfg.chains.some((c) => c.id === chainId))
        throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
      const connector = cfg.connectors.find((c) => c.id === connectorId);
      if (!connector) throw new ExternalWalletError("PROVIDER_NOT_FOUND", { details: connectorId });
      const current = getAccount(cfg);
      if (current.status === "connected" && current.connector?.uid === connector.uid)
        throw new ExternalWalletError("CONNECTOR_ALREADY_CONNECTED");

      const previous = signer.store.getState().externalWallet;
      setWallet({ status: "connecting", connector: infoOf(connector) }, true);
      const onMessage = ({ type, data }: { type: string; data?: unknown }) => {
        if (type === "display_uri" && typeof data === "string") onDisplayUri?.(data);
      };
      connector.emitter.on("message", onMessage);
      attempting++;
      let settled = true;
      try {
        const timeout = walletOptions.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
        const pending = connect(cfg, { connector, ...(chainId !== undefined ? { chainId } : {}) });
        const result = await bounded(pending, timeout, signal).catch(async (error: unknown) => {
          if (error instanceof ExternalWalletError) {
            // Abandoned (timed out or canceled) while the wallet still asks its user: when it answers,
            // the connection is dropped, and only then does the state follow wagmi's again.
            settled = false;
            void pending
              .then(
                () => disconnect(cfg, { connector }),
                () => {},
              )
              .catch(() => {})
              .finally(() => {
                attempting--;
              });
            if (connector.type === "walletConnect") {
              const provider = (await connector.getProvider().catch(() => undefined)) as
                | { abortPairingAttempt?: () => void }
                | undefined;
              provider?.abortPairingAttempt?.();
            }
          }
          throw error;
        });
        let connectedChain = result.chainId;
        // A wallet on a chain the app does not use is moved to one it does (or refused).
        if (!cfg.chains.some((c) => c.id === connectedChain)) {
          try {
            const target = cfg.chains[0].id;
            await switchChain(cfg, {
              chainId: target,
              connector,
              addEthereumChainParameter: { rpcUrls: [rpcUrls[target] as string] },
            });
            connectedChain = target;
          } catch (error) {
            await disconnect(cfg, { connector }).catch(() => {});
            throw new ExternalWalletError("WALLET_CHAIN_UNSUPPORTED", { cause: error });
          }
        }
        const address = result.accounts[0] as Address;
        let siwe: SiweSession | undefined;
        if (siweEnabled) {
          try {
            siwe = await bounded(signInWithEthereum(signer, cfg, address, connectedChain), timeout, signal);
          } catch (error) {
            await disconnect(cfg, { connector }).catch(() => {});
            throw error;
          }
          saveSiwe(siwe);
        }
        const info = infoOf(connector);
        setWallet(
          {
            status: "connected",
            connector: info,
            address,
            chainId: connectedChain,
            ...(siwe ? { siwe } : {}),
          },
          true,
        );
        signer._internal.emitter.emit("externalWalletConnected", {
          address,
          chainId: connectedChain,
          connector: info,
        });
        return { address, chainId: connectedChain, connector: info, ...(siwe ? { siwe } : {}) };
      } catch (error) {
        // Back to the state before the attempt (spec §4): connected to another wallet, or disconnected.
        const account = getAccount(cfg);
        if (account.status === "connecting" || account.status === "reconnecting")
          cfg.setState((x) => ({ ...x, status: x.current ? "connected" : "disconnected" }));
        const now = getAccount(cfg);
        setWallet(now.status === "connected" ? previous : { status: "disconnected" }, true);
        throw toExternalWalletError(error);
      } finally {
        if (settled) attempting--;
        connector.emitter.off("message", onMessage);
      }
    },

    async reconnect() {
      if (!config) return;
      await reconnect(config).catch(() => []);
      const account = getAccount(config);
      if (account.status !== "connected" || !account.address) return;
      const stored = readSiwe();
      if (stored && stored.address === account.address && Date.parse(stored.expiresAt) > Date.now())
        setWallet({ siwe: stored });
      else if (stored) saveSiwe(undefined);
    },

    async disconnect() {
      if (!config) return;
      saveSiwe(undefined);
      await disconnect(config).catch(() => {});
      setWallet({ status: "disconnected" }, true);
    },

    async switchChain(chainId) {
      const cfg = requireConfig();
      if (!cfg.chains.some((c) => c.id === chainId)) throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
      if (getAccount(cfg).status !== "connected") throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
      try {
        const chain = await switchChain(cfg, {
          chainId,
          addEthereumChainParameter: { rpcUrls: [rpcUrls[chainId] as string] },
        });
        return chain.id;
      } catch (error) {
        throw toExternalWalletError(error);
      }
    },

    async signIn() {
      const cfg = requireConfig();
      const account = getAccount(cfg);
      if (account.status !== "connected" || !account.address || !account.chainId)
        throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
      const siwe = await signInWithEthereum(signer, cfg, account.address, account.chainId).catch((error) => {
        throw toExternalWalletError(error);
      });
      saveSiwe(siwe);
      setWallet({ siwe });
      return siwe;
    },

    async sendTransaction(request, waitForTxn, timeout) {
      const cfg = requireConfig();
      const account = getAccount(cfg);
      if (account.status !== "connected" || !account.chainId)
        throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
      const chainId = request.chainId ?? account.chainId;
      if (!cfg.chains.some((c) => c.id === chainId)) throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
      const tx = {
        to: request.to,
        ...(request.data ? { data: request.data } : {}),
        ...(request.value !== undefined ? { value: request.value } : {}),
        chainId,
      };
      try {
        const hash = await sendTransaction(cfg, tx);
        if (waitForTxn)
          await waitForTransactionReceipt(cfg, { hash, chainId, ...(timeout ? { timeout } : {}) });
        return { hash, request: tx };
      } catch (error) {
        throw toExternalWalletError(error);
      }
    },
  };
  return runtime;
}
