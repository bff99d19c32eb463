// Loaded with ./send: tells why a Solana transaction failed, from kit's errors or the node's JSON.
import {
  isSolanaError,
  SOLANA_ERROR__INSTRUCTION_ERROR__ACCOUNT_NOT_RENT_EXEMPT,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT,
  SOLANA_ERROR__TRANSACTION_ERROR__INVALID_RENT_PAYING_ACCOUNT,
} from "@solana/kit";
import { SolanaError } from "../errors/solana";

export const SYSTEM_PROGRAM_ADDRESS = "11111111111111111111111111111111";
/** The System program's `ResultWithNegativeLamports`: a transfer of more than the source holds. */
const SYSTEM_ERROR_NEGATIVE_LAMPORTS = 1;

/** Why a transaction failed, as far as a UI needs to know. */
export type FailureKind = "blockhash" | "funds" | "rent" | "other";

/** The program of each instruction of the transaction, by index (to read `Custom` errors). */
export type ProgramsByIndex = readonly string[];

const FUNDS_TEXT = /no record of a prior credit|insufficient funds(?! for rent)|insufficient lamports/i;
const RENT_TEXT = /insufficient funds for rent|not rent.exempt|rent.paying/i;
const BLOCKHASH_TEXT = /blockhash not found/i;

/** Kind of a `TransactionError` as the node writes it in JSON (`"BlockhashNotFound"`, `{InstructionError: …}`). */
export function failureOfTransactionError(err: unknown, programs: ProgramsByIndex = []): FailureKind {
  if (err === "BlockhashNotFound") return "blockhash";
  if (err === "InsufficientFundsForFee" || err === "AccountNotFound") return "funds";
  if (typeof err === "object" && err !== null) {
    if ("InsufficientFundsForRent" in err || "InvalidRentPayingAccount" in err) return "rent";
    const instruction = (err as { InstructionError?: unknown }).InstructionError;
    if (Array.isArray(instruction)) {
      const [index, reason] = instruction as [unknown, unknown];
      if (reason === "InsufficientFunds") return "funds";
      if (reason === "AccountNotRentExempt") return "rent";
      const custom = (reason as { Custom?: unknown } | null)?.Custom;
      if (
        custom !== undefined &&
        Number(custom) === SYSTEM_ERROR_NEGATIVE_LAMPORTS &&
        programs[Number(index)] === SYSTEM_PROGRAM_ADDRESS
      )
        return "funds";
    }
  }
  if (err === "InvalidRentPayingAccount") return "rent";
  return "other";
}

/** Kind of an error thrown while sending: kit's errors (their causes and preflight logs) or a node's text. */
export function failureOfError(error: unknown, programs: ProgramsByIndex = []): FailureKind {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (isSolanaError(e)) {
      if (isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)) return "blockhash";
      if (
        isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE) ||
        isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND) ||
        isSolanaError(e, SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS)
      )
        return "funds";
      if (
        isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT) ||
        isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__INVALID_RENT_PAYING_ACCOUNT) ||
        isSolanaError(e, SOLANA_ERROR__INSTRUCTION_ERROR__ACCOUNT_NOT_RENT_EXEMPT)
      )
        return "rent";
      if (movesTooMuch(e, programs)) return "funds";
      if (isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) {
        const logs = (e.context as { logs?: unknown }).logs;
        if (Array.isArray(logs) && logs.some((line) => /insufficient lamports/i.test(String(line))))
          return "funds";
      }
    }
    const message = e instanceof Error ? e.message : typeof e === "string" ? e : "";
    if (BLOCKHASH_TEXT.test(message)) return "blockhash";
    if (RENT_TEXT.test(message)) return "rent";
    if (FUNDS_TEXT.test(message)) return "funds";
  }
  return "other";
}

/** JSON with bigints (kit answers numbers as bigints), for messages. */
export function describe(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? Number(v) : v)) ?? String(value);
}

/** The System program's "more lamports than the source holds" (a `Custom` error says only its number). */
function movesTooMuch(error: unknown, programs: ProgramsByIndex): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if (
      isSolanaError(e, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM) &&
      e.context.code === SYSTEM_ERROR_NEGATIVE_LAMPORTS &&
      programs[e.context.index] === SYSTEM_PROGRAM_ADDRESS
    )
      return true;
  return false;
}

/** The innermost message of an error chain worth showing (kit's preflight error says less than its cause). */
function innermostMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof Error && e.message) message = e.message;
  return message;
}

/** The SolanaError for a failed send (BLOCKHASH_EXPIRED for a stale blockhash: the caller may retry). */
export function toSendError(error: unknown, programs: ProgramsByIndex = []): SolanaError {
  if (error instanceof SolanaError) return error;
  const kind = failureOfError(error, programs);
  const details = movesTooMuch(error, programs)
    ? "a System program instruction moves more lamports than the account holds"
    : innermostMessage(error);
  if (kind === "blockhash") return new SolanaError("BLOCKHASH_EXPIRED", { cause: error, details });
  if (kind === "funds") return new SolanaError("INSUFFICIENT_FUNDS", { cause: error, details });
  if (kind === "rent") return new SolanaError("INSUFFICIENT_FUNDS_FOR_RENT", { cause: error, details });
  const preflight = isSolanaError(
    error,
    SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  );
  return new SolanaError(preflight ? "SOLANA_TRANSACTION_FAILED" : "SOLANA_SEND_FAILED", {
    cause: error,
    details,
  });
}

/** The SolanaError for a transaction the cluster processed with an error (`getSignatureStatuses`' `err`). */
export function toConfirmedFailure(
  transactionError: unknown,
  signature: string,
  programs: ProgramsByIndex = [],
): SolanaError {
  const kind = failureOfTransactionError(transactionError, programs);
  const details = describe(transactionError);
  const options = { details, transactionError, signature };
  if (kind === "funds") return new SolanaError("INSUFFICIENT_FUNDS", options);
  if (kind === "rent") return new SolanaError("INSUFFICIENT_FUNDS_FOR_RENT", options);
  if (kind === "blockhash") return new SolanaError("BLOCKHASH_EXPIRED", options);
  return new SolanaError("SOLANA_TRANSACTION_FAILED", options);
}
