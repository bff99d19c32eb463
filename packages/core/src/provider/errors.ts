import { ActivityError, LatchkeyError, SignerError } from "../errors";
import { SmartAccountError } from "../errors/smartAccount";

/**
 * The error codes the embedded wallet's EIP-1193 provider answers with: EIP-1193's provider errors
 * (4001–4902), EIP-1474's JSON-RPC errors (-32700 … -32006) and EIP-5792's call-batch errors (5700–5760).
 */
export const ProviderRpcErrorCode = {
  /** EIP-1193: the user rejected the request (e.g. closed the sign-in modal). */
  USER_REJECTED: 4001,
  /** EIP-1193: not signed in, or the address is not this wallet's. */
  UNAUTHORIZED: 4100,
  /** EIP-1193: the provider does not support the method. */
  UNSUPPORTED_METHOD: 4200,
  /** EIP-1193: disconnected from all chains (no chain is configured). */
  DISCONNECTED: 4900,
  /** EIP-1193: not connected to the requested chain (or its RPC cannot be reached). */
  CHAIN_DISCONNECTED: 4901,
  /** EIP-3326: the chain is not one of the configured chains. */
  UNRECOGNIZED_CHAIN: 4902,
  /** EIP-1474: invalid JSON-RPC parameters. */
  INVALID_PARAMS: -32602,
  /** EIP-1474: internal error. */
  INTERNAL_ERROR: -32603,
  /** EIP-1474: invalid input. */
  INVALID_INPUT: -32000,
  /** EIP-1474: transaction rejected (not sent: no funds, a refused sponsorship, a revert). */
  TRANSACTION_REJECTED: -32003,
  /** EIP-5792: a non-optional capability the wallet does not support. */
  UNSUPPORTED_CAPABILITY: 5700,
  /** EIP-5792: the wallet does not support the batch's chain. */
  UNSUPPORTED_CHAIN: 5710,
  /** EIP-5792: a batch with this id was already sent. */
  DUPLICATE_ID: 5720,
  /** EIP-5792: no batch with this id is known. */
  UNKNOWN_BUNDLE: 5730,
} as const;
/** One of {@link ProviderRpcErrorCode}'s values, or a code a chain's node answered with. */
export type ProviderRpcErrorCodeValue = (typeof ProviderRpcErrorCode)[keyof typeof ProviderRpcErrorCode];

/**
 * An error of the embedded wallet's EIP-1193 provider: a numeric `code` (EIP-1193 / EIP-1474 / EIP-5792,
 * or the node's own for a forwarded read), a message for people, and optional `data`. When it comes from
 * a Latchkey error, `data.code` is that error's stable code (e.g. "INSUFFICIENT_FUNDS") and `cause` the
 * error itself. viem turns it into its own RPC error classes (e.g. `SwitchChainError` for 4902).
 */
export class ProviderRpcError extends Error {
  override name = "ProviderRpcError" as const;
  readonly code: number;
  readonly data: unknown;
  /** The message again (the shape of viem's `ProviderRpcError`). */
  readonly details: string;
  constructor(code: number, message: string, options: { data?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = options.data;
    this.details = message;
  }
}

/** -32602 with the problem in words. */
export const invalidParams = (message: string) =>
  new ProviderRpcError(ProviderRpcErrorCode.INVALID_PARAMS, `Invalid parameters: ${message}`);

/** 4200 for a method the provider does not answer. */
export const unsupportedMethod = (method: string) =>
  new ProviderRpcError(
    ProviderRpcErrorCode.UNSUPPORTED_METHOD,
    `The Latchkey provider does not support the method "${method}"`,
  );

/** 4100 for an address that is neither the smart account nor its owner. */
export const unauthorizedAddress = (address: string) =>
  new ProviderRpcError(
    ProviderRpcErrorCode.UNAUTHORIZED,
    `The address ${address} is not this wallet's account (its smart account or that account's owner)`,
  );

/** Which code a Latchkey error becomes. */
function codeOf(error: LatchkeyError): number {
  if (error instanceof SignerError) {
    if (error.code === "USER_REJECTED") return ProviderRpcErrorCode.USER_REJECTED;
    return error.code === "NOT_AUTHENTICATED" ||
      error.code === "MUST_BE_AUTHENTICATED" ||
      error.code === "NOT_CONNECTED"
      ? ProviderRpcErrorCode.UNAUTHORIZED
      : ProviderRpcErrorCode.INTERNAL_ERROR;
  }
  if (error instanceof SmartAccountError) {
    switch (error.code) {
      case "SMART_ACCOUNT_CLIENT_MISSING":
        return ProviderRpcErrorCode.DISCONNECTED;
      case "CHAIN_NOT_CONFIGURED":
        return ProviderRpcErrorCode.CHAIN_DISCONNECTED;
      case "INSUFFICIENT_FUNDS":
      case "SPONSORSHIP_REFUSED":
      case "USER_OPERATION_REVERTED":
        return ProviderRpcErrorCode.TRANSACTION_REJECTED;
      default:
        return ProviderRpcErrorCode.INTERNAL_ERROR;
    }
  }
  // A signing policy refused (REJECTED) or is waiting for approval (CONSENSUS_NEEDED): EIP-1474's
  // "transaction rejected"; an activity the service could not complete (FAILED) is an internal error.
  if (error instanceof ActivityError)
    return error.activityStatus === "ACTIVITY_STATUS_FAILED"
      ? ProviderRpcErrorCode.INTERNAL_ERROR
      : ProviderRpcErrorCode.TRANSACTION_REJECTED;
  return ProviderRpcErrorCode.INTERNAL_ERROR;
}

/**
 * Any failure as a {@link ProviderRpcError}: a provider error as it is, an error with an RPC code (a
 * node's answer) with that code, a Latchkey error by its code (its `code`, `details` and user operation
 * hash in `data`), anything else as -32603.
 */
export function toProviderRpcError(error: unknown): ProviderRpcError {
  if (error instanceof ProviderRpcError) return error;
  if (error instanceof LatchkeyError) {
    const data: Record<string, unknown> = { code: error.code };
    if (error instanceof SmartAccountError) {
      if (error.details !== undefined) data.details = error.details;
      if (error.userOperationHash !== undefined) data.userOperationHash = error.userOperationHash;
    }
    if (error instanceof ActivityError) {
      // The activity's id lets the app wait for an admin's decision (waitForActivity).
      data.activityId = error.activityId;
      data.activityStatus = error.activityStatus;
    }
    return new ProviderRpcError(codeOf(error), error.message, { data, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderRpcError(ProviderRpcErrorCode.INTERNAL_ERROR, message || "Internal error", {
    cause: error,
  });
}
