// Types only, and free of @solana/kit: the main entry's view of Solana (the signer's options, the inputs
// `sendSolanaTransaction` takes, the user's Solana signer). Kit's own values are matched structurally; the
// code that needs kit (sending, the wallet-standard wallet) is reached only through `solana()` of
// `@latchkey/core/solana`, which the app imports.
import type { SignerClient } from "../client/signerClient";

/** A Solana cluster as wallet-standard names it. */
export type SolanaChain = "solana:mainnet" | "solana:devnet" | "solana:testnet" | "solana:localnet";

/** The signer's Solana defaults: where to send, which sponsorship policy, which cluster the wallet serves. */
export interface SolanaOptions {
  /** The Solana JSON-RPC URL `sendSolanaTransaction` and the wallet send through. */
  rpcUrl?: string;
  /** The service's Solana sponsorship policy: with it, sends are sponsored unless `sponsored: false`. */
  policyId?: string;
  /** The cluster the wallet-standard wallet announces (`solana:mainnet` by default). */
  chain?: SolanaChain;
}

/** Kit hands out bytes typed read-only. */
export type ReadonlyBytes = Omit<Uint8Array, "copyWithin" | "fill" | "reverse" | "set" | "sort">;

/** A public key of @solana/web3.js v1 (only what is read here). */
export interface Web3PublicKeyInput {
  toBase58(): string;
}

/** A @solana/web3.js v1 `TransactionInstruction`: its program, its accounts and its data. */
export interface Web3TransactionInstructionInput {
  programId: Web3PublicKeyInput;
  keys: readonly { pubkey: Web3PublicKeyInput; isSigner: boolean; isWritable: boolean }[];
  data: Uint8Array;
}

/**
 * A @solana/kit `Instruction` (what is read of it): its program, its accounts with their role (kit's
 * `AccountRole`) and, for accounts that sign, kit's signer (`AccountSignerMeta`), and its data.
 */
export interface KitInstructionInput {
  readonly programAddress: string;
  readonly accounts?: readonly { readonly address: string; readonly role: number }[];
  readonly data?: ReadonlyBytes;
}

/** An instruction to send: a @solana/kit `Instruction` or a @solana/web3.js v1 `TransactionInstruction`. */
export type SolanaInstructionInput = KitInstructionInput | Web3TransactionInstructionInput;

/** One method of a @solana/kit `Rpc`: called with its parameters, it answers a request to `send()`. */
type KitRpcMethod = (...params: never[]) => { send(): Promise<unknown> };

/**
 * The Solana JSON-RPC methods sending needs, as a @solana/kit `Rpc` (`createSolanaRpc(url)` is one):
 * `getLatestBlockhash`, `sendTransaction`, `getSignatureStatuses` and `getBlockHeight`.
 */
export interface SolanaRpcLike {
  getLatestBlockhash: KitRpcMethod;
  sendTransaction: KitRpcMethod;
  getSignatureStatuses: KitRpcMethod;
  getBlockHeight: KitRpcMethod;
}

/** Commitment levels of Solana, weakest first. */
export type SolanaCommitment = "processed" | "confirmed" | "finalized";

/** A legacy `Transaction` of @solana/web3.js v1. */
export interface Web3LegacyTransactionLike {
  serializeMessage(): Uint8Array;
  signatures: { publicKey: Web3PublicKeyInput }[];
  addSignature(publicKey: never, signature: never): void;
}
/** A `VersionedTransaction` of @solana/web3.js v1. */
export interface Web3VersionedTransactionLike {
  version: unknown;
  message: { serialize(): Uint8Array; staticAccountKeys: Web3PublicKeyInput[] };
  signatures: Uint8Array[];
}
/** A compiled transaction of @solana/kit. */
export interface KitTransactionLike {
  messageBytes: ReadonlyBytes;
  signatures: Readonly<Record<string, Uint8Array | null>>;
}
/** A Solana transaction from `@solana/kit` or `@solana/web3.js` v1 (legacy or versioned). */
export type SolanaTransactionLike =
  | Web3LegacyTransactionLike
  | Web3VersionedTransactionLike
  | KitTransactionLike;

/** The user's Solana account as a signer: its address, and message and transaction signatures made by the service. */
export interface SolanaSigner {
  /** The user's Solana address (base58). */
  readonly address: string;
  /** The 64-byte ed25519 signature of `message`. */
  signMessage(message: ReadonlyBytes): Promise<Uint8Array>;
  /**
   * Adds the user's signature to a transaction: a @solana/web3.js v1 `Transaction` or
   * `VersionedTransaction` (signed in place and returned), or a @solana/kit transaction (a new object).
   */
  signTransaction<T extends SolanaTransactionLike>(transaction: T): Promise<T>;
  /** @solana/kit `TransactionPartialSigner`. */
  signTransactions(transactions: readonly KitTransactionLike[]): Promise<Record<string, Uint8Array>[]>;
  /** @solana/kit `MessagePartialSigner`. */
  signMessages(messages: readonly { content: ReadonlyBytes }[]): Promise<Record<string, Uint8Array>[]>;
}

/** A send with everything resolved: who signs, where to, and the policy when sponsored. */
export interface SolanaSendRequest {
  signer: SolanaSigner;
  instructions?: readonly SolanaInstructionInput[];
  transfer?: { toAddress: string; amount: bigint | number };
  connection: string | SolanaRpcLike | undefined;
  /** Sponsored under this policy; unsponsored without. */
  policyId: string | undefined;
  client: SignerClient;
}

/** The sending code (@solana/kit), loaded on the first send. */
export interface SolanaEngine {
  /** Builds, (sponsors,) signs, sends and confirms; an expired blockhash is retried once. */
  sendSolana(request: SolanaSendRequest): Promise<{ signature: string }>;
}

/**
 * Solana as `solana({ rpcUrl, policyId, chain })` of `@latchkey/core/solana` makes it: the defaults, and
 * the loader of the sending code (which needs the optional peer @solana/kit).
 */
export interface SolanaConfig extends SolanaOptions {
  /** @internal Loads the sending code on the first send; not a stable API. */
  readonly load: () => Promise<SolanaEngine>;
}
