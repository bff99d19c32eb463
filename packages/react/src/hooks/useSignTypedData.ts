import {
  type UseMutateAsyncFunction,
  type UseMutateFunction,
  type UseMutationResult,
  useMutation,
} from "@tanstack/react-query";
import type { Hex } from "viem";
import { useLatchkeyContext } from "../context";
import { type SignTypedDataVariables, signTypedDataMutationOptions } from "../query/signTypedData";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/** What `useSignTypedData` answers: TanStack Query's mutation result, with the call named. */
export type UseSignTypedDataReturnType = UseMutationResult<Hex, Error, SignTypedDataVariables> & {
  signTypedData: UseMutateFunction<Hex, Error, SignTypedDataVariables>;
  signTypedDataAsync: UseMutateAsyncFunction<Hex, Error, SignTypedDataVariables>;
};

/**
 * Signs EIP-712 typed data with the user's EVM wallet.
 *
 * @example
 * const { signTypedDataAsync } = useSignTypedData();
 * const signature = await signTypedDataAsync({ domain, types, primaryType: "Mail", message });
 */
export function useSignTypedData(): UseSignTypedDataReturnType {
  const { signer } = useLatchkeyContext();
  const m = useMutation(signTypedDataMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, signTypedData: m.mutate, signTypedDataAsync: m.mutateAsync };
}
