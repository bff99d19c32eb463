import {
  type SendSolanaTransactionParameters,
  type SendSolanaTransactionReturnType,
  type Signer,
  sendSolanaTransaction,
} from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/**
 * A Solana transaction to send: instructions (kit or web3.js v1), or a SOL transfer `{toAddress, amount}`
 * in lamports; with per-call overrides of the hook's options.
 */
export type SolanaTransactionVariables = (
  | { instructions: NonNullable<SendSolanaTransactionParameters["instructions"]>; transfer?: never }
  | { transfer: NonNullable<SendSolanaTransactionParameters["transfer"]>; instructions?: never }
) &
  Pick<SendSolanaTransactionParameters, "policyId" | "sponsored" | "connection">;

/**
 * Mutation options of `sendSolanaTransaction` from the user's Solana wallet.
 *
 * @example
 * const m = useMutation(sendSolanaTransactionMutationOptions(signer, { policyId: "pol_sol" }));
 */
export function sendSolanaTransactionMutationOptions(
  signer: Signer,
  defaults: Pick<SendSolanaTransactionParameters, "policyId" | "sponsored" | "connection">,
): MutationOptions<SendSolanaTransactionReturnType, Error, SolanaTransactionVariables> {
  return {
    mutationKey: ["latchkey", "sendSolanaTransaction"],
    mutationFn: (variables) =>
      sendSolanaTransaction(signer, { ...defaults, ...variables } as SendSolanaTransactionParameters),
  };
}
