import type { Address, Chain, Hex, Transport } from "viem";
import type { BundlerClient, SmartAccount, UserOperation } from "viem/account-abstraction";

/**
 * A chain the user's smart account runs on (spec §1 "send user operations"): the chain, where to read
 * it, the ERC-4337 bundler that takes its user operations, and optionally a sponsorship policy of this
 * app on the Latchkey service, whose paymaster then pays the gas.
 */
export interface SmartAccountChainConfig {
  /** A viem chain, e.g. `base` from `viem/chains`. */
  chain: Chain;
  /** JSON-RPC endpoint of the chain; the chain's default RPC URL otherwise. */
  rpcUrl?: string;
  /** ERC-4337 bundler endpoint (EntryPoint v0.8). */
  bundlerUrl: string;
  /** A sponsorship policy of this app on the service: its paymaster pays for every operation. */
  policyId?: string;
  /** An ERC-7677 paymaster other than the service's (`<serviceUrl>/rpc/v1`). */
  paymasterUrl?: string;
  /** How often receipts are polled, in ms (default 1000). */
  pollingInterval?: number;
}

/**
 * The user's smart account: `"7702"`, the embedded wallet's own address (its EOA), delegated by EIP-7702 to
 * Simple7702Account (EntryPoint v0.8) on its first operation; `"4337"`, a SimpleAccount (ERC-4337 v0.8)
 * the embedded wallet owns, at an address of its own.
 */
export type SmartAccountKind = "7702" | "4337";

/**
 * The contract behind the user's smart account: "Simple7702Account" (kind "7702"; the EOA's delegate),
 * "LatchkeySimpleAccount" (kind "4337": SimpleAccount v0.8 with ERC-1271, what new 4337 users get) or
 * "SimpleAccount" (kind "4337", eth-infinitism's, kept by users who got it before; it has no ERC-1271).
 */
export type SmartAccountContract = "Simple7702Account" | "LatchkeySimpleAccount" | "SimpleAccount";

/** `SignerOptions.smartAccount`: the kind new users get. */
export interface SmartAccountOptions {
  /**
   * The app's default for users with no kind recorded yet ("7702" unless said). The service records the
   * kind a user first gets, and they keep it: changing this later does not move an existing user's address.
   */
  kind?: SmartAccountKind;
}

/** One call of a user operation (spec §3 "Send-user-operation input"). */
export interface UserOperationCallInput {
  target: Address;
  data?: Hex;
  value?: bigint;
}

/**
 * An ERC-7677 paymaster service for one operation (EIP-5792's `paymasterService` capability): the
 * paymaster's URL and the context it is sent (e.g. `{ policyId }` for the service's `/rpc/v1`).
 */
export interface PaymasterServiceInput {
  url: string;
  context?: Record<string, unknown>;
}

/** A user operation: one call, a batch of calls (one atomic operation), or the account's call data in hex. */
export type UserOperationInput = UserOperationCallInput | readonly UserOperationCallInput[] | Hex;

/**
 * The user's smart account on one chain: a viem bundler client whose `account` is the embedded wallet's
 * EOA delegated to Simple7702Account (kind "7702") or a LatchkeySimpleAccount (ERC-4337 v0.8) it owns
 * (kind "4337"). `client.account.address` is known before the first operation, which delegates the EOA or
 * deploys the account. For a LatchkeySimpleAccount, `client.account.signMessage` and `signTypedData`
 * make signatures that verify for `client.account.address` (ERC-6492 while undeployed, then ERC-1271).
 */
export type LatchkeySmartAccountClient = BundlerClient<Transport, Chain, SmartAccount> & {
  /** Which smart account it is: the user's recorded kind (`SmartAccountKind`). */
  readonly smartAccountKind: SmartAccountKind;
  /** The contract behind it (`SmartAccountContract`). */
  readonly smartAccountContract: SmartAccountContract;
};

/** A signed user operation as it was sent to the bundler. */
export type SentUserOperation = UserOperation<"0.8">;
