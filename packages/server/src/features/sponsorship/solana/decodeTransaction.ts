import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import {
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type TransactionMessage,
  type TransactionMessageWithFeePayer,
  type TransactionMessageWithLifetime,
} from "@solana/kit";
import { RpcError, rpcError } from "../jsonRpc";
import { invalidTransaction } from "./parseParams";

type Compiled = CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
type LegacyOrV0 = Compiled & { version: "legacy" | 0 };

/** A transaction message as kit builds them, legacy or v0, with its fee payer and lifetime. */
export type SolanaMessage = TransactionMessage &
  TransactionMessageWithFeePayer &
  TransactionMessageWithLifetime & { version: "legacy" | 0 };

export interface DecodedTransaction {
  /** The message as the client compiled it (its fee payer is the client's). */
  compiled: LegacyOrV0;
  /** The same message, decompiled: instructions with their accounts' addresses and roles. */
  message: SolanaMessage;
}

/**
 * Decodes a wire transaction (legacy or v0, signatures possibly all zero) into its message, checking what
 * Solana's sanitiser checks that decompiling relies on: every index points at an account, no account is
 * listed twice, the header's counts fit the account list, no instruction calls the fee payer's slot, and
 * nothing trails the message. A v0 message that loads accounts from address lookup tables is refused: the
 * accounts hidden there cannot be checked (the fee payer could be one of them). Anything else that does
 * not decode is invalid params, never an internal error.
 */
export function decodeTransaction(bytes: Uint8Array): DecodedTransaction {
  let messageBytes: Uint8Array;
  let compiled: Compiled;
  try {
    messageBytes = Uint8Array.from(getTransactionDecoder().decode(bytes).messageBytes);
    const [message, end] = getCompiledTransactionMessageDecoder().read(messageBytes, 0);
    if (end !== messageBytes.length) throw invalidTransaction("Bytes trail the transaction's message");
    compiled = message;
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw invalidTransaction("serializedTransaction does not decode as a Solana wire transaction");
  }
  if (compiled.version !== "legacy" && compiled.version !== 0)
    throw invalidTransaction(
      `Only legacy and v0 transactions are sponsored, not version ${compiled.version}`,
    );
  if (compiled.version === 0 && (compiled.addressTableLookups?.length ?? 0) > 0)
    throw rpcError(
      RpcErrorCode.INVALID_PARAMS,
      SponsorshipErrorCode.SOLANA_LOOKUP_TABLES_NOT_SUPPORTED,
      "Transactions that load accounts from address lookup tables are not sponsored: list every account in the message",
    );
  checkSanitary(compiled);
  let message: SolanaMessage;
  try {
    message = decompileTransactionMessage(compiled) as SolanaMessage;
  } catch {
    throw invalidTransaction("The transaction's message does not decompile");
  }
  return { compiled, message };
}

function checkSanitary(compiled: LegacyOrV0): void {
  const { header, staticAccounts, instructions } = compiled;
  const count = staticAccounts.length;
  if (header.numSignerAccounts < 1 || header.numSignerAccounts > count)
    throw invalidTransaction("The message's header does not fit its accounts (it needs a fee payer)");
  if (header.numReadonlySignerAccounts >= header.numSignerAccounts)
    throw invalidTransaction("The message's fee payer must be a writable signer");
  if (header.numSignerAccounts + header.numReadonlyNonSignerAccounts > count)
    throw invalidTransaction("The message's header does not fit its accounts");
  if (new Set(staticAccounts).size !== count) throw invalidTransaction("An account is listed twice");
  if (instructions.length === 0) throw invalidTransaction("The transaction has no instruction");
  for (const [index, instruction] of instructions.entries()) {
    const program = instruction.programAddressIndex;
    // Index 0 is the fee payer, which Solana never runs as a program.
    if (program < 1 || program >= count)
      throw invalidTransaction(`Instruction ${index}'s program index points at no account`, {
        instruction: index,
      });
    for (const account of instruction.accountIndices ?? [])
      if (account >= count)
        throw invalidTransaction(`Instruction ${index} names an account index past the account list`, {
          instruction: index,
        });
  }
}
