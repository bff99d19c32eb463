import { LatchkeyError, messageWithDetails } from "./base";
import { type SolanaErrorCode, SolanaErrorMessages } from "./codes";

/**
 * A Solana error (sending, sponsorship, the wallet-standard wallet): no connection or policy, invalid
 * input, too little SOL (`INSUFFICIENT_FUNDS`) or rent, an expired blockhash (after one retry), a refused
 * sponsorship (with the service's `reason`), a failed transaction (with Solana's `transactionError`).
 * Classify by `code`; `details` says what the node or the service said.
 */
export class SolanaError<C extends SolanaErrorCode = SolanaErrorCode> extends LatchkeyError<C> {
  override name = "SolanaError" as const;
  /** What the node, the service or the check said, in words. */
  readonly details: string | undefined;
  /** The service's stable reason for a refused sponsorship (`error.data.code`, e.g. `POLICY_NOT_FOUND`). */
  readonly reason: string | undefined;
  /** Solana's `TransactionError` as the node reported it (e.g. `{ InstructionError: [0, { Custom: 1 }] }`). */
  readonly transactionError: unknown;
  /** The transaction's signature (base58), when it was sent. */
  readonly signature: string | undefined;
  constructor(
    code: C,
    options: {
      cause?: unknown;
      details?: string;
      reason?: string;
      transactionError?: unknown;
      signature?: string;
    } = {},
  ) {
    const base = SolanaErrorMessages[code];
    super(code, messageWithDetails(base, options.details), { cause: options.cause });
    this.details = options.details;
    this.reason = options.reason;
    this.transactionError = options.transactionError;
    this.signature = options.signature;
  }
}
