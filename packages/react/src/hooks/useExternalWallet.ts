import type { ExternalWalletState, SignerState } from "@latchkey/core";
import { useSignerState } from "./useSignerState";

const selectExternalWallet = (state: SignerState) => state.externalWallet;
const DISCONNECTED: ExternalWalletState = { status: "disconnected" };

/**
 * The external wallet (EOA) the user signed in with: status, wallet, address, chain and the SIWE proof
 * (`siwe.token`, for the app's backend); re-renders when the wallet changes account or chain.
 *
 * @example
 * const { status, address, chainId } = useExternalWallet();
 * return status === "connected" ? <code>{address} on {chainId}</code> : null;
 */
export function useExternalWallet(): ExternalWalletState {
  return useSignerState(selectExternalWallet, DISCONNECTED);
}
