// Loaded on first use by sendSolanaTransaction: build, (sponsor,) sign, send and confirm.
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from "@solana/kit";
import { SolanaError } from "../errors/solana";
import type { SolanaSendRequest } from "../types/solana";
import { type PartialSigner, partialSignersOf, toKitInstructions, transferInstruction } from "./instructions";
import { confirmSignature, type KitRpc, latestBlockhash, resolveRpc, sendWireTransaction } from "./rpc";
import { sponsorTransaction } from "./sponsor";

/** Sends once with a fresh blockhash; an expired blockhash is retried once, then BLOCKHASH_EXPIRED. */
export async function sendSolana(request: SolanaSendRequest): Promise<{ signature: string }> {
  const rpc = resolveRpc(request.connection);
  const instructions = request.transfer
    ? [transferInstruction(request.signer.address, request.transfer.toAddress, request.transfer.amount)]
    : toKitInstructions(request.instructions ?? []);
  const partialSigners = partialSignersOf(request.instructions ?? []);
  for (let attempt = 1; ; attempt++) {
    try {
      return { signature: await sendOnce(rpc, request, instructions, partialSigners) };
    } catch (error) {
      if (!(error instanceof SolanaError) || error.code !== "BLOCKHASH_EXPIRED") throw error;
      if (attempt >= 2)
        throw new SolanaError("BLOCKHASH_EXPIRED", {
          cause: error,
          details: `it expired again after a retry with a fresh blockhash (${error.details ?? "blockhash not found"})`,
          ...(error.signature ? { signature: error.signature } : {}),
        });
    }
  }
}

async function sendOnce(
  rpc: KitRpc,
  request: SolanaSendRequest,
  instructions: readonly Instruction[],
  partialSigners: ReadonlyMap<string, PartialSigner>,
): Promise<string> {
  const { signer } = request;
  const latest = await latestBlockhash(rpc);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(signer.address), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  let transaction: Transaction = compileTransaction(message);
  if (request.policyId)
    transaction = await sponsorTransaction(request.client, request.policyId, transaction, {
      instructions,
      blockhash: latest.blockhash,
      userAddress: signer.address,
    });
  // Nobody signs before it is known that every signature can be had.
  const missing = Object.entries(transaction.signatures)
    .filter(([who, signature]) => !signature && who !== signer.address && !partialSigners.has(who))
    .map(([who]) => who);
  if (missing.length)
    throw new SolanaError("SOLANA_INVALID_INPUT", {
      details: `the instructions also need signatures from ${missing.join(", ")}; pass their @solana/kit signers on the instructions' accounts`,
    });
  if (signer.address in transaction.signatures) transaction = await signer.signTransaction(transaction);
  // Signers the instructions carry (kit's AccountSignerMeta) sign the final message too.
  for (const [who, partial] of partialSigners) {
    if (who === signer.address || !(who in transaction.signatures) || transaction.signatures[who as Address])
      continue;
    const [dictionary] = await partial.signTransactions([transaction as never]);
    transaction = { ...transaction, signatures: { ...transaction.signatures, ...dictionary } as never };
  }
  const programs = instructions.map((instruction) => instruction.programAddress);
  const signature = await sendWireTransaction(rpc, getBase64EncodedWireTransaction(transaction), {
    programs,
  });
  await confirmSignature(rpc, signature, { lastValidBlockHeight: latest.lastValidBlockHeight, programs });
  return signature;
}
