import type { SendUserOperationReturnType } from "@latchkey/core";
import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { type SendUserOperationVariables, sendUserOperationMutationOptions } from "../query/smartAccount";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/** Options of `useSendUserOperation`. */
export interface UseSendUserOperationOptions {
  /** A configured chain's id; the first configured chain by default. */
  chainId?: number;
  /** Wait for the transaction and answer its hash (else the user operation's hash). */
  waitForTxn?: boolean;
  /** A sponsorship policy in place of the chain's. */
  policyId?: string;
  onSuccess?: (result: SendUserOperationReturnType, variables: SendUserOperationVariables) => void;
  onError?: (error: Error, variables: SendUserOperationVariables) => void;
}

/**
 * Sends user operations from the user's smart account: one call `{target, data, value}`, a batch, or
 * hex call data (sponsored when the chain or the call names a policy).
 *
 * @example
 * const { sendUserOperation, sendUserOperationResult, isSendingUserOperation } = useSendUserOperation({ waitForTxn: true });
 * sendUserOperation({ uo: { target: counter, data: incrementData } });
 */
export function useSendUserOperation({ onSuccess, onError, ...defaults }: UseSendUserOperationOptions = {}) {
  const { signer } = useLatchkeyContext();
  const m = useMutation(
    {
      ...sendUserOperationMutationOptions(signer, defaults),
      ...(onSuccess ? { onSuccess } : {}),
      ...(onError ? { onError } : {}),
    },
    useLatchkeyQueryClient(),
  );
  return {
    sendUserOperation: m.mutate,
    sendUserOperationAsync: m.mutateAsync,
    /** `{hash, request}` of the last operation sent (hash = transaction hash with `waitForTxn`). */
    sendUserOperationResult: m.data,
    isSendingUserOperation: m.isPending,
    error: m.error,
    reset: m.reset,
  };
}
