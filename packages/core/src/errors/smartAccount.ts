import type { SentUserOperation } from "../types/smartAccounts";
import { LatchkeyError, messageWithDetails } from "./base";
import { type SmartAccountErrorCode, SmartAccountErrorMessages } from "./codes";

/**
 * A smart-account error (spec §8 "sending"): no chain configured (the missing client), a chain not
 * configured, a reverted operation (with its revert reason), no funds for gas, a refused sponsorship,
 * or a failed wait for the transaction (which carries the user operation it waited for).
 */
export class SmartAccountError<
  C extends SmartAccountErrorCode = SmartAccountErrorCode,
> extends LatchkeyError<C> {
  override name = "SmartAccountError" as const;
  /** The revert reason, the paymaster's refusal or the bundler's message, as the chain or service said it. */
  readonly details: string | undefined;
  /** The user operation hash a wait was for. */
  readonly userOperationHash: `0x${string}` | undefined;
  /** The signed user operation that was sent, when a wait for its transaction failed after sending it. */
  readonly request: SentUserOperation | undefined;
  constructor(
    code: C,
    options: {
      cause?: unknown;
      details?: string;
      userOperationHash?: `0x${string}`;
      request?: SentUserOperation;
    } = {},
  ) {
    const base = SmartAccountErrorMessages[code];
    super(code, messageWithDetails(base, options.details), { cause: options.cause });
    this.details = options.details;
    this.userOperationHash = options.userOperationHash;
    this.request = options.request;
  }
}
