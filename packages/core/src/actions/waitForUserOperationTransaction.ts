import type { Hex } from "viem";
import type { SignerError } from "../errors";
import type { SmartAccountError } from "../errors/smartAccount";
import type { SignerBase } from "../signer/types";
import { getSmartAccountClient } from "./getSmartAccountClient";

/** What `waitForUserOperationTransaction` takes: the operation's hash and its chain. */
export interface WaitForUserOperationTransactionParameters {
  hash: Hex;
  /** A configured chain's id; the first configured chain by default. */
  chainId?: number;
  /** How long to wait, in ms (viem's default otherwise). */
  timeout?: number;
}
/** The hash of the transaction that included the operation. */
export type WaitForUserOperationTransactionReturnType = Hex;
/** The errors `waitForUserOperationTransaction` may throw. */
export type WaitForUserOperationTransactionErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SmartAccountError<
      | "SMART_ACCOUNT_CLIENT_MISSING"
      | "CHAIN_NOT_CONFIGURED"
      | "USER_OPERATION_REVERTED"
      | "WAIT_FOR_TRANSACTION_FAILED"
    >;

/**
 * Waits until a user operation is in a block and answers that transaction's hash. A reverted operation
 * fails with its revert reason; a wait that fails (timeout, bundler down) wraps the operation's hash.
 *
 * @example
 * const { hash } = await sendUserOperation(signer, { uo });
 * const txHash = await waitForUserOperationTransaction(signer, { hash });
 */
export async function waitForUserOperationTransaction(
  signer: SignerBase,
  { hash, chainId, timeout }: WaitForUserOperationTransactionParameters,
): Promise<WaitForUserOperationTransactionReturnType> {
  const client = await getSmartAccountClient(signer, { chainId });
  const { waitForTransaction } = await import("../smartAccounts/send");
  return waitForTransaction(client, hash, timeout);
}
