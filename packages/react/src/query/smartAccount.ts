import {
  getSmartAccountClient,
  type LatchkeySmartAccountClient,
  type SendUserOperationParameters,
  type SendUserOperationReturnType,
  type Signer,
  sendUserOperation,
  type WaitForUserOperationTransactionParameters,
  waitForUserOperationTransaction,
} from "@latchkey/core";
import type { MutationOptions, UseQueryOptions } from "@tanstack/react-query";
import type { Hex } from "viem";

/**
 * Query options of the user's smart-account client on a chain (made once per user and chain).
 *
 * @example
 * const q = useQuery(smartAccountClientQueryOptions(signer, user.address, 31337));
 */
export function smartAccountClientQueryOptions(
  signer: Signer,
  owner: string | undefined,
  chainId: number | undefined,
): UseQueryOptions<LatchkeySmartAccountClient, Error, LatchkeySmartAccountClient, readonly unknown[]> {
  return {
    queryKey: ["latchkey", "smartAccountClient", owner, chainId ?? null],
    queryFn: () => getSmartAccountClient(signer, chainId === undefined ? {} : { chainId }),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
  };
}

/** A user operation to send, with per-call overrides of the hook's options. */
export type SendUserOperationVariables = Omit<SendUserOperationParameters, "chainId" | "waitForTxn"> &
  Partial<Pick<SendUserOperationParameters, "waitForTxn">>;

/**
 * Mutation options of `sendUserOperation` on one chain.
 *
 * @example
 * const m = useMutation(sendUserOperationMutationOptions(signer, { waitForTxn: true }));
 */
export function sendUserOperationMutationOptions(
  signer: Signer,
  defaults: Pick<SendUserOperationParameters, "chainId" | "waitForTxn" | "policyId">,
): MutationOptions<SendUserOperationReturnType, Error, SendUserOperationVariables> {
  return {
    mutationKey: ["latchkey", "sendUserOperation", defaults.chainId ?? null],
    mutationFn: (variables) => sendUserOperation(signer, { ...defaults, ...variables }),
  };
}

/**
 * Mutation options of `waitForUserOperationTransaction` on one chain.
 *
 * @example
 * const m = useMutation(waitForUserOperationTransactionMutationOptions(signer, undefined));
 */
export function waitForUserOperationTransactionMutationOptions(
  signer: Signer,
  chainId: number | undefined,
): MutationOptions<Hex, Error, Omit<WaitForUserOperationTransactionParameters, "chainId">> {
  return {
    mutationKey: ["latchkey", "waitForUserOperationTransaction", chainId ?? null],
    mutationFn: (variables) =>
      waitForUserOperationTransaction(signer, {
        ...variables,
        ...(chainId === undefined ? {} : { chainId }),
      }),
  };
}
