import type { SendSolanaTransactionReturnType } from "@latchkey/core";
import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { type SolanaTransactionVariables, sendSolanaTransactionMutationOptions } from "../query/solana";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/** Options of `useSolanaTransaction`: defaults for every send, which a call may override. */
export interface UseSolanaTransactionOptions {
  /** A Solana sponsorship policy of the app (the service's fee payer pays the fee) in place of the config's. */
  policyId?: string;
  /** `false`: the user pays the fee even when a policy is configured. */
  sponsored?: boolean;
  /** The Solana RPC (a URL or a kit `Rpc`) in place of the provider's `config.solana.rpcUrl`. */
  connection?: SolanaTransactionVariables["connection"];
  onSuccess?: (result: SendSolanaTransactionReturnType, variables: SolanaTransactionVariables) => void;
  onError?: (error: Error, variables: SolanaTransactionVariables) => void;
}

/**
 * Sends a Solana transaction from the user's wallet and waits until it is confirmed: instructions (kit
 * or web3.js v1) or a SOL transfer in lamports; the fee is paid by the service's fee payer under a
 * sponsorship policy, or by the user.
 *
 * @example
 * const { sendTransaction, signature, isPending } = useSolanaTransaction({ policyId: "pol_sol" });
 * sendTransaction({ transfer: { toAddress: "9xQe…", amount: 1_000_000n } }); // 0.001 SOL, fee sponsored
 */
export function useSolanaTransaction({ onSuccess, onError, ...defaults }: UseSolanaTransactionOptions = {}) {
  const { signer } = useLatchkeyContext();
  const m = useMutation(
    {
      ...sendSolanaTransactionMutationOptions(signer, defaults),
      ...(onSuccess ? { onSuccess } : {}),
      ...(onError ? { onError } : {}),
    },
    useLatchkeyQueryClient(),
  );
  return {
    sendTransaction: m.mutate,
    sendTransactionAsync: m.mutateAsync,
    /** The signature of the last transaction sent, once confirmed. */
    signature: m.data?.signature,
    isPending: m.isPending,
    error: m.error,
    reset: m.reset,
  };
}
