// Types only, and free of wagmi and WalletConnect: the main entry's view of external wallets (options,
// state, what the verbs take and answer). The engine behind them (wagmi, the connectors) is loaded through
// `externalWallets()` of `@latchkey/core/external-wallets`, which the app imports (types: ../externalWallets/types.ts).
import type { Address, Chain, EIP1193Provider, Hex } from "viem";

/**
 * WalletConnect v2 for the external-wallet sign-in: the app's project id and, for a self-hosted or local
 * relay, its URL. The QR code is drawn by the modal from the pairing URI (no AppKit).
 */
export interface WalletConnectOptions {
  /** The app's WalletConnect project id. */
  projectId: string;
  /** The relay; WalletConnect's (`wss://relay.walletconnect.org`) by default. */
  relayUrl?: string;
  /** What the wallet shows about the app; the page's title and origin by default. */
  metadata?: { name: string; description?: string; url: string; icons?: string[] };
}

/** Sign-In with Ethereum (EIP-4361) after a wallet connects: on by default. */
export interface SiweOptions {
  /** The statement line of the message. */
  statement?: string;
  /** How long the signed message (and the service's token) is valid, in seconds (default 86400). */
  expirationSeconds?: number;
}

/** External wallets (spec §1 "External wallet (EOA)"): injected (EIP-6963) wallets and WalletConnect. */
export interface ExternalWalletsOptions {
  /**
   * WalletConnect v2, as `walletConnect({ projectId })` of `@latchkey/core/walletconnect` makes it; the
   * WalletConnect button fails with the configuration error without it.
   */
  walletConnect?: WalletConnectOptions;
  /**
   * After connecting, the user signs a SIWE message the service verifies, and the state gets a token
   * the app's backend can check. `false` turns it off.
   */
  siwe?: boolean | SiweOptions;
  /** How long a connection may wait for the user, in ms (default 120000): then 'Connection timed out'. */
  connectTimeoutMs?: number;
  /**
   * Chains an external wallet may use, when they differ from `chains` (the smart-account chains, whose
   * `chain` and `rpcUrl` are used otherwise). The first is the default.
   */
  chains?: readonly ExternalWalletChain[];
}

/** A chain an external wallet may be on: the viem chain and where to read it. */
export interface ExternalWalletChain {
  chain: Chain;
  rpcUrl?: string;
}

/** One wallet the user can pick (spec §3 "Wallet connector"): id, name, icon and type. */
export interface WalletConnectorInfo {
  /** The wallet's EIP-6963 `rdns` (e.g. `io.metamask`), or `walletConnect`. */
  id: string;
  name: string;
  /** A data URI or URL of the wallet's icon (EIP-6963). */
  icon?: string;
  type: "injected" | "walletConnect";
}

/** A wallet announced by the page (EIP-6963): its info and its EIP-1193 provider. */
export interface AnnouncedWallet {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: EIP1193Provider;
}

/** The proof a SIWE sign-in gave: the service's token for the app's backend, and what it covers. */
export interface SiweSession {
  /** A JWT signed by the service (check it with `/.well-known/jwks.json` or `/signer/v1/siwe/session`). */
  token: string;
  address: Address;
  chainId: number;
  /** ISO 8601. */
  expiresAt: string;
}

/**
 * The external-wallet connection (spec §3 "Chain and account state", §4 "External wallet"): connecting,
 * then connected (or back to what it was on failure), with the account and chain the wallet is on.
 */
export interface ExternalWalletState {
  status: "disconnected" | "connecting" | "reconnecting" | "connected";
  connector?: WalletConnectorInfo;
  address?: Address;
  chainId?: number;
  /** Set once the user signed the SIWE message for this address (and cleared when the account changes). */
  siwe?: SiweSession;
}

/** What `connectExternalWallet` takes. */
export interface ConnectParams {
  /** A wallet's id from `getWalletConnectors` (its EIP-6963 rdns), or `walletConnect`. */
  connectorId: string;
  /** A configured chain to connect on; the wallet's own (or the first configured) otherwise. */
  chainId?: number;
  /** Aborts the attempt (the modal's Cancel or Back): the wallet is left disconnected. */
  signal?: AbortSignal;
  /** WalletConnect's pairing URI, to draw as a QR code (and again on a new pairing). */
  onDisplayUri?: (uri: string) => void;
}

/** A wallet connected (and proven by SIWE when on). */
export interface ConnectResult {
  address: Address;
  chainId: number;
  connector: WalletConnectorInfo;
  siwe?: SiweSession;
}

/** A single call sent from the external wallet as a plain transaction. */
export interface EoaTransactionRequest {
  to: Address;
  data?: Hex;
  value?: bigint;
  chainId: number;
}

/** What the wallet's send takes: one call, on the wallet's chain unless it names a configured one. */
export interface SendExternalTransactionParameters {
  request: Omit<EoaTransactionRequest, "chainId"> & { chainId?: number };
  /** Wait until the transaction is in a block. */
  waitForTxn: boolean;
  /** How long the wait may take, in ms (viem's default otherwise). */
  timeout?: number | undefined;
}

/** What the signer's listeners hear when a wallet connects (`externalWalletConnected`). */
export interface ExternalWalletConnected {
  address: Address;
  chainId: number;
  connector: WalletConnectorInfo;
}

/**
 * The external wallets of one signer once loaded (wagmi's config and its connectors): each verb, loaded on
 * its first call. The public actions (`connectExternalWallet`, …) call these; apps call the actions.
 */
export interface ExternalWalletsEngine {
  connect(params: ConnectParams): Promise<ConnectResult>;
  /** Reconnects the wallet of last time (on load); never throws. */
  reconnect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Answers the chain id now in use. */
  switchChain(chainId: number): Promise<number>;
  signInWithEthereum(): Promise<SiweSession>;
  sendTransaction(
    params: SendExternalTransactionParameters,
  ): Promise<{ hash: Hex; request: EoaTransactionRequest }>;
}
