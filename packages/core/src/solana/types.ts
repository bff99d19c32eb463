// Types only: @solana/kit is imported for its types, so nothing of it is bundled from here.
import type {
  GetBlockHeightApi,
  GetLatestBlockhashApi,
  GetSignatureStatusesApi,
  Instruction,
  Rpc,
  SendTransactionApi,
} from "@solana/kit";

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

/** An instruction to send: a @solana/kit `Instruction` or a @solana/web3.js v1 `TransactionInstruction`. */
export type SolanaInstructionInput = Instruction | Web3TransactionInstructionInput;

/**
 * The Solana JSON-RPC methods sending needs, as a @solana/kit `Rpc` (`createSolanaRpc(url)` is one):
 * `getLatestBlockhash`, `sendTransaction`, `getSignatureStatuses` and `getBlockHeight`.
 */
export type SolanaRpcLike = Rpc<
  GetLatestBlockhashApi & SendTransactionApi & GetSignatureStatusesApi & GetBlockHeightApi
>;

/** Commitment levels of Solana, weakest first. */
export type SolanaCommitment = "processed" | "confirmed" | "finalized";
