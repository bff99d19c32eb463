import { type Signer, toViemAccount } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";
import type { Hex, TypedData, TypedDataDefinition } from "viem";

/** The EIP-712 typed data to sign. */
export type SignTypedDataVariables = TypedDataDefinition<TypedData | Record<string, unknown>, string> & {
  /** Show the typed data to the user first (the modal's confirmation step), whatever `ui.confirmTransactions`. */
  confirm?: boolean;
};

/**
 * Mutation options of an EIP-712 signature by the user's EVM wallet (viem's `signTypedData`).
 *
 * @example
 * const m = useMutation(signTypedDataMutationOptions(signer));
 */
export function signTypedDataMutationOptions(
  signer: Signer,
): MutationOptions<Hex, Error, SignTypedDataVariables> {
  return {
    mutationKey: ["latchkey", "signTypedData"],
    mutationFn: ({ confirm, ...typedData }) =>
      toViemAccount(signer, { confirm }).signTypedData(typedData as never),
  };
}
