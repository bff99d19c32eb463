import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { switchExternalWalletChainMutationOptions } from "../query/externalWallet";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Moves the external wallet to another configured chain (the wallet asks the user; an unknown chain is
 * added first). `error.code` tells CHAIN_NOT_CONFIGURED, SWITCH_CHAIN_NOT_SUPPORTED or USER_REJECTED.
 *
 * @example
 * const { switchChain, isPending } = useSwitchExternalWalletChain();
 * <button onClick={() => switchChain({ chainId: base.id })}>Use Base</button>
 */
export function useSwitchExternalWalletChain() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(switchExternalWalletChainMutationOptions(signer), useLatchkeyQueryClient());
  return {
    ...m,
    switchChain: (v: { chainId: number }) => m.mutate(v),
    switchChainAsync: (v: { chainId: number }) => m.mutateAsync(v),
  };
}
