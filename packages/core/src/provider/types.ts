import type { Grant, GrantPermissionsInput } from "@latchkey/protocol";
import type { Address, Chain, EIP1193EventMap, EIP1193Provider } from "viem";
import type { SignerBase } from "../signer/types";
import type { SmartAccountChainConfig } from "../types/smartAccounts";
import type { CallsRegistry } from "./calls";

/**
 * A chain of the plain wallet (no bundler): the account is the user's EOA, `eth_sendTransaction` signs a
 * plain transaction through the service and broadcasts it to `rpcUrl` (the chain's default RPC URL
 * otherwise).
 */
export interface PlainChainConfig {
  /** A viem chain, e.g. `base` from `viem/chains`. */
  chain: Chain;
  /** JSON-RPC endpoint of the chain; the chain's default RPC URL otherwise. */
  rpcUrl?: string;
}

/** @internal A chain of the provider: a smart-account chain (with its bundler) or a plain one. */
export type ProviderChainConfig = Omit<SmartAccountChainConfig, "bundlerUrl"> & { bundlerUrl?: string };

/** What `createEip1193Provider` takes besides the signer. */
export interface CreateEip1193ProviderOptions {
  /**
   * Chains without a bundler (the plain wallet: EOA transactions), after the signer's own chains
   * (`createSigner({ chains })`, which have a bundler and win for the same chain id).
   */
  chains?: readonly PlainChainConfig[];
  /**
   * The chain the provider starts on: a configured chain's id (the first one by default);
   * `createEip1193Provider` throws a ProviderRpcError (4901) for another.
   */
  chainId?: number;
  /**
   * Called by `eth_requestAccounts` while nobody is signed in, e.g. to open the sign-in modal; the request
   * answers once it resolves with a user signed in (4001, user rejected, when it rejects or resolves
   * without one). Without it, the signer's sign-in prompt is awaited (the modal of a mounted
   * `<LatchkeyProvider signer={signer}>`, see `setSignInPrompt`); with neither, it fails with 4100.
   */
  requestAccounts?: () => Promise<void>;
  /**
   * Called by `wallet_grantPermissions` (ERC-7715) with the grant the dapp asks for: shows the user what
   * is granted (e.g. the modal's consent step, `useGrantConsent` in @latchkey/react) and resolves with the
   * grant made, or rejects when the user declines (4001). Without it, `wallet_grantPermissions` fails with
   * 4200.
   */
  requestGrant?: (permissions: GrantPermissionsInput) => Promise<Grant>;
}

/**
 * The embedded wallet as an EIP-1193 provider (viem's `EIP1193Provider`: `request`, `on`,
 * `removeListener`), marked `isLatchkey`. Its account is the user's smart account.
 */
export type LatchkeyEip1193Provider = EIP1193Provider & {
  readonly isLatchkey: true;
};

/** @internal The events the provider emits, by name. */
export type ProviderEventName = keyof EIP1193EventMap;

/** @internal What every method handler works with: one per provider. */
export interface ProviderContext {
  readonly signer: SignerBase;
  readonly options: CreateEip1193ProviderOptions;
  /** The EIP-5792 batches sent through this provider. */
  readonly calls: CallsRegistry;
  /** The chain the provider is on. */
  chainId(): number;
  /** Moves the provider to a configured chain; `chainChanged` fires when it changes. */
  setChainId(chainId: number): void;
  /** The configured chains: the signer's (with a bundler), then the plain ones. */
  chains(): readonly ProviderChainConfig[];
  /**
   * A configured chain (the current one by default); a ProviderRpcError with `code` (4901 by default)
   * for one that is not configured, 4900 when none is.
   */
  chain(chainId?: number, code?: number): ProviderChainConfig;
  /** A chain's JSON-RPC URL (its `rpcUrl`, else the chain's default); 4901 naming `rpcUrl` when it has none. */
  rpcUrl(config: ProviderChainConfig): string;
  /** A chain's bundler; 4200 naming `bundlerUrl` for a plain chain (`what` is the method that needs it). */
  bundlerUrl(config: ProviderChainConfig, what: string): string;
  /**
   * The signed-in user's account on a chain (the current one by default): the smart account on a chain
   * with a bundler, the EOA on a plain one; 4100 when signed out.
   */
  account(chainId?: number): Promise<Address>;
  /** A JSON-RPC call to a node or bundler, with the signer's `fetch`. */
  rpc(url: string, method: string, params?: unknown): Promise<unknown>;
  /** Emits a provider event. */
  emit<E extends ProviderEventName>(event: E, payload: Parameters<EIP1193EventMap[E]>[0]): void;
}

/** @internal One JSON-RPC method of the provider. */
export type MethodHandler = (ctx: ProviderContext, params: readonly unknown[]) => Promise<unknown>;
