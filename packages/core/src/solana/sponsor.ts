// Loaded with ./send: the service's fee payer pays, and what it answers is checked before the user signs.
import { SOLANA_FEE_PAYER_METHOD, SponsorshipErrorCode } from "@latchkey/protocol/wire";
import {
  AccountRole,
  type Address,
  decompileTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
  mergeRoles,
  type Transaction,
} from "@solana/kit";
import type { SignerClient } from "../client/signerClient";
import { SolanaError } from "../errors/solana";

/** What the sponsored transaction must still be: these instructions, this blockhash, not paid by the user. */
export interface ExpectedTransaction {
  instructions: readonly Instruction[];
  blockhash: string;
  /** The account the fee was moved away from. */
  userAddress: string;
}

const mismatch = (details: string, cause?: unknown) =>
  new SolanaError("SPONSORED_TRANSACTION_MISMATCH", { details, ...(cause ? { cause } : {}) });

function bytesEqual(a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Asks the service's fee payer to pay for `transaction` (unsigned, the user as fee payer) under `policyId`;
 * answers the service's transaction (its fee payer set and signed) once it is checked to hold exactly the
 * same instructions and blockhash, so the user never signs something else.
 */
export async function sponsorTransaction(
  client: SignerClient,
  policyId: string,
  transaction: Transaction,
  expected: ExpectedTransaction,
): Promise<Transaction> {
  let serializedTransaction: string;
  try {
    ({ serializedTransaction } = await requestFeePayer(client, {
      policyId,
      serializedTransaction: getBase64EncodedWireTransaction(transaction),
    }));
  } catch (error) {
    // The service checks the blockhash too: a stale one is retried like a send that found none.
    if (error instanceof SolanaError && error.reason === SponsorshipErrorCode.SOLANA_BLOCKHASH_EXPIRED)
      throw new SolanaError("BLOCKHASH_EXPIRED", {
        cause: error,
        reason: error.reason,
        ...(error.details ? { details: error.details } : {}),
      });
    throw error;
  }
  let sponsored: Transaction;
  try {
    sponsored = getTransactionDecoder().decode(getBase64Encoder().encode(serializedTransaction));
  } catch (cause) {
    throw mismatch("its answer is not a Solana transaction", cause);
  }
  checkSponsoredTransaction(sponsored, expected);
  return sponsored;
}

/** Throws SPONSORED_TRANSACTION_MISMATCH unless `sponsored` is `expected` with another, signing, fee payer. */
export function checkSponsoredTransaction(sponsored: Transaction, expected: ExpectedTransaction): void {
  let message: ReturnType<typeof decompileTransactionMessage>;
  try {
    const compiled = getCompiledTransactionMessageDecoder().decode(sponsored.messageBytes);
    if (compiled.version !== 0) throw mismatch(`its message is version ${compiled.version}, not 0`);
    if (compiled.addressTableLookups?.length) throw mismatch("its message uses address lookup tables");
    message = decompileTransactionMessage(compiled);
  } catch (cause) {
    throw cause instanceof SolanaError ? cause : mismatch("its message does not decode", cause);
  }
  const lifetime = message.lifetimeConstraint as { blockhash?: string };
  if (lifetime.blockhash !== expected.blockhash) throw mismatch("its blockhash differs");
  const feePayer = message.feePayer.address;
  if (feePayer === expected.userAddress) throw mismatch("the user still pays the fee");
  if (!sponsored.signatures[feePayer]) throw mismatch("its fee payer did not sign");

  // Every account keeps the role the instructions give it; the fee payer is a writable signer on top.
  const roles = new Map<Address, AccountRole>([[feePayer, AccountRole.WRITABLE_SIGNER]]);
  for (const instruction of expected.instructions)
    for (const account of instruction.accounts ?? []) {
      const seen = roles.get(account.address);
      roles.set(account.address, seen === undefined ? account.role : mergeRoles(seen, account.role));
    }
  const got = message.instructions;
  if (got.length !== expected.instructions.length)
    throw mismatch(`it holds ${got.length} instructions instead of ${expected.instructions.length}`);
  expected.instructions.forEach((want, i) => {
    const have = got[i];
    if (!have || have.programAddress !== want.programAddress)
      throw mismatch(`instruction ${i} calls another program`);
    if (!bytesEqual(have.data, want.data)) throw mismatch(`instruction ${i} carries other data`);
    const haveAccounts = have.accounts ?? [];
    const wantAccounts = want.accounts ?? [];
    if (
      haveAccounts.length !== wantAccounts.length ||
      haveAccounts.some(
        (account, k) =>
          account.address !== wantAccounts[k]?.address || account.role !== roles.get(account.address),
      )
    )
      throw mismatch(`instruction ${i} names other accounts or roles`);
  });
}

/**
 * `latchkey_requestFeePayer` on the service: the transaction with the service's fee payer set and signed.
 * A refusal is a SPONSORSHIP_REFUSED SolanaError whose `reason` is the service's `error.data.code`.
 */
async function requestFeePayer(
  client: SignerClient,
  params: { policyId: string; serializedTransaction: string },
): Promise<{ serializedTransaction: string }> {
  const answer = await client.jsonRpc(SOLANA_FEE_PAYER_METHOD, [params]);
  if (answer.error) {
    const reason = typeof answer.error.data?.code === "string" ? answer.error.data.code : undefined;
    const message = answer.error.message ?? `JSON-RPC error ${answer.error.code}`;
    throw new SolanaError("SPONSORSHIP_REFUSED", {
      details: reason ? `${reason}: ${message}` : message,
      ...(reason ? { reason } : {}),
    });
  }
  const serializedTransaction = (answer.result as { serializedTransaction?: unknown } | undefined)
    ?.serializedTransaction;
  if (typeof serializedTransaction !== "string")
    throw new SolanaError("SPONSORSHIP_REFUSED", {
      details: "the service answered no serializedTransaction",
    });
  return { serializedTransaction };
}
