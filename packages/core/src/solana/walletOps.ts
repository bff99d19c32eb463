// Loaded on first use by the wallet-standard wallet: wire transactions in and out, through @solana/kit.
import {
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Transaction,
} from "@solana/kit";
import { SolanaError } from "../errors/solana";
import type { SolanaCommitment, SolanaRpcLike, SolanaSigner } from "../types/solana";
import { confirmSignature, latestBlockhash, resolveRpc, sendWireTransaction } from "./rpc";

/** Adds the user's signature to a wire transaction (legacy or v0); answers it decoded and as wire bytes. */
export async function signWireTransaction(
  signer: SolanaSigner,
  bytes: Uint8Array,
): Promise<{ transaction: Transaction; wire: Uint8Array }> {
  let transaction: Transaction;
  try {
    transaction = getTransactionDecoder().decode(bytes);
  } catch (cause) {
    throw new SolanaError("SOLANA_INVALID_INPUT", {
      cause,
      details: "the bytes are not a Solana transaction",
    });
  }
  if (!(signer.address in transaction.signatures))
    throw new SolanaError("SOLANA_ACCOUNT_MISMATCH", {
      details: `the transaction needs no signature from ${signer.address}`,
    });
  const signed = await signer.signTransaction(transaction);
  return { transaction: signed, wire: Uint8Array.from(getTransactionEncoder().encode(signed)) };
}

/** The program of each instruction (to read the System program's `Custom` errors). */
function programsOf(transaction: Transaction): string[] {
  try {
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!("instructions" in message)) return [];
    return message.instructions.map((i) => String(message.staticAccounts[i.programAddressIndex] ?? ""));
  } catch {
    return [];
  }
}

export interface SignAndSendOptions {
  commitment?: SolanaCommitment;
  preflightCommitment?: SolanaCommitment;
  skipPreflight?: boolean;
  maxRetries?: number;
}

/**
 * Signs a wire transaction, sends it and waits for `commitment` (`confirmed` by default); answers its
 * signature (the fee payer's, 64 bytes). The transaction's blockhash is the app's: an expiry is not
 * retried (BLOCKHASH_EXPIRED).
 */
export async function signAndSendWireTransaction(
  signer: SolanaSigner,
  bytes: Uint8Array,
  connection: string | SolanaRpcLike | undefined,
  options: SignAndSendOptions = {},
): Promise<Uint8Array> {
  const rpc = resolveRpc(connection);
  const { transaction } = await signWireTransaction(signer, bytes);
  const signature = Object.values(transaction.signatures)[0];
  if (!signature)
    throw new SolanaError("SOLANA_INVALID_INPUT", { details: "the fee payer's signature is missing" });
  // The transaction's blockhash is no newer than the latest: past the latest's last valid height it
  // cannot land any more.
  const { lastValidBlockHeight } = await latestBlockhash(rpc);
  const programs = programsOf(transaction);
  const sent = await sendWireTransaction(rpc, getBase64EncodedWireTransaction(transaction), {
    programs,
    ...(options.preflightCommitment ? { preflightCommitment: options.preflightCommitment } : {}),
    ...(options.skipPreflight !== undefined ? { skipPreflight: options.skipPreflight } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  });
  await confirmSignature(rpc, sent, {
    commitment: options.commitment ?? "confirmed",
    lastValidBlockHeight,
    programs,
  });
  return Uint8Array.from(signature);
}
