import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { waitForUserOperationTransactionMutationOptions } from "../query/smartAccount";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Waits until a user operation is in a block and gives the transaction's hash (a reverted operation
 * fails with its reason).
 *
 * @example
 * const { waitForUserOperationTransactionAsync } = useWaitForUserOperationTransaction();
 * const txHash = await waitForUserOperationTransactionAsync({ hash });
 */
export function useWaitForUserOperationTransaction({ chainId }: { chainId?: number } = {}) {
  const { signer } = useLatchkeyContext();
  const m = useMutation(
    waitForUserOperationTransactionMutationOptions(signer, chainId),
    useLatchkeyQueryClient(),
  );
  return {
    waitForUserOperationTransaction: m.mutate,
    waitForUserOperationTransactionAsync: m.mutateAsync,
    /** The transaction hash of the last wait. */
    waitForUserOperationTransactionResult: m.data,
    isWaitingForUserOperationTransaction: m.isPending,
    error: m.error,
    reset: m.reset,
  };
}
