// Loaded on first use (engine.ts, itself loaded by `externalWallets()`): wagmi's store and connectors stay
// out of an app's initial JavaScript, and so do the verbs in actions/ (each loaded on its first call).
import { type Config, type Connector, createConfig, createStorage, getAccount, http } from "@wagmi/core";
import type { Chain } from "viem";
import { ExternalWalletError } from "../errors/externalWallet";
import type { SignerBase } from "../signer/types";
import type { ExternalWalletChain, WalletConnectorInfo } from "../types/externalWallets";
import { signInWithEthereum } from "./siwe";
import { saveSiwe, WALLET_STORAGE_KEY, walletStorage } from "./storage";
import type { ExternalWalletsParameters, WalletConnectConnectorFactory, WalletsConfig } from "./types";

function chainsOf(signer: SignerBase, options: ExternalWalletsParameters): ExternalWalletChain[] {
  return [
    ...(options.chains ??
      (signer._internal.options.chains ?? []).map((c) => ({ chain: c.chain, rpcUrl: c.rpcUrl }))),
  ];
}

/** A wagmi connector as the modal lists it. */
export function infoOf(connector: Connector): WalletConnectorInfo {
  return {
    id: connector.id,
    name: connector.name,
    ...(connector.icon ? { icon: connector.icon } : {}),
    type: connector.type === "walletConnect" ? "walletConnect" : "injected",
  };
}

/** wagmi's config, or NO_CHAINS_ON_CONNECTOR when no chain is configured. */
export function requireWagmi(config: WalletsConfig): Config {
  if (!config.wagmi) throw new ExternalWalletError("NO_CHAINS_ON_CONNECTOR");
  return config.wagmi;
}

/**
 * The external wallets of one signer: a wagmi config (EIP-6963 wallets discovered by wagmi, WalletConnect
 * when configured: `latchkeyWalletConnect`, loaded by engine.ts) whose account and chain are mirrored into
 * the signer's store as `externalWallet`.
 */
export function createWalletsConfig(
  signer: SignerBase,
  options: ExternalWalletsParameters,
  latchkeyWalletConnect: WalletConnectConnectorFactory | undefined,
): WalletsConfig {
  const chains = chainsOf(signer, options);
  const rpcUrls: Record<number, string> = Object.fromEntries(
    chains.map((c) => [c.chain.id, c.rpcUrl ?? c.chain.rpcUrls.default.http[0] ?? ""]),
  );
  const walletConnect =
    options.walletConnect?.projectId && latchkeyWalletConnect
      ? latchkeyWalletConnect({ ...options.walletConnect, rpcUrls })
      : undefined;
  const wagmi = chains.length
    ? createConfig({
        chains: chains.map((c) => c.chain) as [Chain, ...Chain[]],
        transports: Object.fromEntries(chains.map((c) => [c.chain.id, http(rpcUrls[c.chain.id])])),
        connectors: walletConnect ? [walletConnect] : [],
        multiInjectedProviderDiscovery: true,
        storage: createStorage({ storage: walletStorage, key: WALLET_STORAGE_KEY }),
        // Not `ssr`: it would leave out the wallets announced so far (the config is made in a browser, on use).
      })
    : undefined;

  const getWallet = () => signer.store.getState().externalWallet;
  const setWallet: WalletsConfig["setWallet"] = (state) => signer.store.setState({ externalWallet: state });

  // Attempts in progress own the state until they settle (connected only once SIWE is done too), and so
  // does one abandoned (timed out, canceled) until the wallet answers and is disconnected again.
  let attempting = 0;
  // The wallet's account and chain as wagmi sees them, mirrored at once (a change in the wallet included).
  wagmi?.subscribe(
    (s) => s,
    () => {
      if (attempting > 0) return;
      const account = getAccount(wagmi);
      const previous = getWallet();
      if (account.status === "connected" || account.status === "reconnecting") {
        if (account.status === "reconnecting" && !account.address) {
          setWallet({ status: "reconnecting" });
          return;
        }
        // A proof is for one address: another account has to sign in again.
        const siwe = previous.siwe && previous.siwe.address === account.address ? previous.siwe : undefined;
        if (!siwe && previous.siwe) saveSiwe(undefined);
        setWallet({
          status: account.status,
          ...(account.connector ? { connector: infoOf(account.connector) } : {}),
          ...(account.address ? { address: account.address } : {}),
          ...(account.chainId ? { chainId: account.chainId } : {}),
          ...(siwe ? { siwe } : {}),
        });
      } else if (account.status === "disconnected" && previous.status !== "connecting") {
        setWallet({ status: "disconnected" });
      }
    },
  );

  const config: WalletsConfig = {
    wagmi,
    options,
    rpcUrls,
    walletConnect: walletConnect !== undefined,
    getWallet,
    setWallet,
    patchWallet: (patch) =>
      signer.store.setState((s) => ({ externalWallet: { ...s.externalWallet, ...patch } })),
    beginAttempt() {
      attempting++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        attempting--;
      };
    },
    proveAddress: (address, chainId) =>
      signInWithEthereum(signer, options, requireWagmi(config), address, chainId),
    announceConnected: (event) => signer._internal.emitter.emit("externalWalletConnected", event),
  };
  return config;
}
