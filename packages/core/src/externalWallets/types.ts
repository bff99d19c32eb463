// The engine's own types (wagmi's), reached only from the `@latchkey/core/external-wallets` and
// `@latchkey/core/walletconnect` entries; what the main entry knows of external wallets is
// ../types/externalWallets.ts.
import type { Config, CreateConnectorFn } from "@wagmi/core";
import type { Address } from "viem";
import type {
  ExternalWalletConnected,
  ExternalWalletState,
  ExternalWalletsOptions,
  SiweSession,
  WalletConnectOptions,
} from "../types/externalWallets";

/** Makes the WalletConnect connector for the configured chains' RPC URLs (walletConnect/connector.ts). */
export type WalletConnectConnectorFactory = (
  options: WalletConnectOptions & { rpcUrls: Record<number, string> },
) => CreateConnectorFn;

/**
 * WalletConnect as `walletConnect({ projectId })` makes it: its options, and the loader of its connector
 * (which loads WalletConnect's client only when the user picks WalletConnect).
 */
export interface WalletConnectConfig extends WalletConnectOptions {
  /** @internal Loads the connector, with the rest of the wallet code; not a stable API. */
  readonly loadConnector: () => Promise<WalletConnectConnectorFactory>;
}

/** What `externalWallets()` takes: the external wallets' options, WalletConnect as `walletConnect()` makes it. */
export interface ExternalWalletsParameters extends Omit<ExternalWalletsOptions, "walletConnect"> {
  /** WalletConnect v2 (`walletConnect({ projectId })` of `@latchkey/core/walletconnect`); injected wallets only without it. */
  walletConnect?: WalletConnectConfig;
}

/**
 * The external wallets of one signer, the one piece of their state (`config.ts` makes it on first use):
 * wagmi's config, whose account and chain are mirrored into the signer's `externalWallet` state. Each
 * verb in `actions/` is a function of it, as wagmi's actions are of its `config`.
 */
export interface WalletsConfig {
  /** wagmi's config: the chains, their transports, EIP-6963 discovery and WalletConnect; none without chains. */
  readonly wagmi: Config | undefined;
  readonly options: ExternalWalletsParameters;
  /** Each configured chain's RPC URL by id: offered to a wallet that does not know the chain. */
  readonly rpcUrls: Readonly<Record<number, string>>;
  /** True when WalletConnect is configured (a project id). */
  readonly walletConnect: boolean;
  /** The signer's `externalWallet` state. */
  getWallet(): ExternalWalletState;
  /** Replaces it. */
  setWallet(state: ExternalWalletState): void;
  /** Merges `patch` into it. */
  patchWallet(patch: Partial<ExternalWalletState>): void;
  /**
   * Starts an attempt: until the answer is called (once), the state belongs to the attempt and the mirror
   * of wagmi's state waits.
   */
  beginAttempt(): () => void;
  /** Signs in with Ethereum (EIP-4361) for `address` on `chainId` against the signer's service. */
  proveAddress(address: Address, chainId: number): Promise<SiweSession>;
  /** Tells the signer's listeners a wallet connected. */
  announceConnected(event: ExternalWalletConnected): void;
}
