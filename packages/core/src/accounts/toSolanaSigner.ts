import { fromHex } from "@latchkey/protocol/wire";
import { signRawMessage } from "../actions/signRawMessage";
import { SignerError } from "../errors";
import type { SignerBase } from "../signer/types";
import type { ReadonlyBytes, SolanaSigner, SolanaTransactionLike } from "../types/solana";

const SIGNATURE_LENGTH = 64;

/**
 * The signed-in user's Solana wallet. Throws 'no solana address' when the user has none.
 *
 * @example
 * const solana = toSolanaSigner(signer);
 * const signed = await solana.signTransaction(versionedTransaction);
 */
export function toSolanaSigner(signer: SignerBase): SolanaSigner {
  const user = signer.store.getState().user;
  if (!user) throw new SignerError("NOT_AUTHENTICATED");
  const address = user.solanaAddress;
  if (!address) throw new SignerError("NO_SOLANA_ADDRESS");

  const signBytes = async (bytes: ReadonlyBytes): Promise<Uint8Array> => {
    const message = Uint8Array.from(bytes as ArrayLike<number>);
    const signature = await signRawMessage(signer, { message, mode: "SOLANA" });
    return fromHex(signature).slice(0, SIGNATURE_LENGTH);
  };

  const signTransaction = async <T extends SolanaTransactionLike>(transaction: T): Promise<T> => {
    if ("messageBytes" in transaction) {
      const signature = await signBytes(transaction.messageBytes);
      return Object.freeze({
        ...transaction,
        signatures: Object.freeze({ ...transaction.signatures, [address]: signature }),
      }) as unknown as T;
    }
    if ("version" in transaction) {
      const index = transaction.message.staticAccountKeys.findIndex((key) => key.toBase58() === address);
      if (index < 0) throw new TypeError(`The transaction does not need a signature from ${address}`);
      transaction.signatures[index] = await signBytes(transaction.message.serialize());
      return transaction;
    }
    const message = transaction.serializeMessage();
    const entry = transaction.signatures.find((pair) => pair.publicKey.toBase58() === address);
    if (!entry) throw new TypeError(`The transaction does not need a signature from ${address}`);
    const signature = await signBytes(message);
    // web3.js keeps signatures as Buffers; Buffer.from inside addSignature copies a Uint8Array too.
    transaction.addSignature(entry.publicKey as never, signature as never);
    return transaction;
  };

  return {
    address,
    signMessage: signBytes,
    signTransaction,
    async signTransactions(transactions) {
      const out: Record<string, Uint8Array>[] = [];
      for (const tx of transactions) out.push({ [address]: await signBytes(tx.messageBytes) });
      return out;
    },
    async signMessages(messages) {
      const out: Record<string, Uint8Array>[] = [];
      for (const m of messages) out.push({ [address]: await signBytes(m.content) });
      return out;
    },
  };
}
