import { type Signer, toViemAccount } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";
import type { Hex, SignableMessage } from "viem";

/** The message to sign (EIP-191). */
export interface SignMessageVariables {
  message: SignableMessage;
  /** Show the message to the user first (the modal's confirmation step), whatever `ui.confirmTransactions`. */
  confirm?: boolean;
}

/**
 * Mutation options of an EIP-191 signature by the user's EVM wallet (viem's `signMessage`).
 *
 * @example
 * const m = useMutation(signMessageMutationOptions(signer));
 */
export function signMessageMutationOptions(
  signer: Signer,
): MutationOptions<Hex, Error, SignMessageVariables> {
  return {
    mutationKey: ["latchkey", "signMessage"],
    mutationFn: ({ message, confirm }) => toViemAccount(signer, { confirm }).signMessage({ message }),
  };
}
