import { type Signer, switchExternalWalletChain } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/**
 * Mutation options of `switchExternalWalletChain` (answers the chain id now in use).
 *
 * @example
 * const m = useMutation(switchExternalWalletChainMutationOptions(signer));
 */
export function switchExternalWalletChainMutationOptions(
  signer: Signer,
): MutationOptions<number, Error, { chainId: number }> {
  return {
    mutationKey: ["latchkey", "switchExternalWalletChain"],
    mutationFn: ({ chainId }) => switchExternalWalletChain(signer, { chainId }),
  };
}
