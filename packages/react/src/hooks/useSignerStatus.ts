import { type SignerState, SignerStatus } from "@latchkey/core";
import { useSignerState } from "./useSignerState";

/** The signer's status, with the common questions answered. */
export interface UseSignerStatusResult {
  status: SignerStatus;
  isInitializing: boolean;
  isConnected: boolean;
  isDisconnected: boolean;
  isAuthenticating: boolean;
}

const selectStatus = (state: SignerState) => state.status;

/**
 * The signer's status (spec §3), re-rendering on every change; INITIALIZING during server rendering.
 *
 * @example
 * const { isConnected, isAuthenticating } = useSignerStatus();
 */
export function useSignerStatus(): UseSignerStatusResult {
  const status = useSignerState(selectStatus, SignerStatus.INITIALIZING);
  return {
    status,
    isInitializing: status === SignerStatus.INITIALIZING,
    isConnected: status === SignerStatus.CONNECTED,
    isDisconnected: status === SignerStatus.DISCONNECTED,
    isAuthenticating: status.startsWith("AUTHENTICATING_") || status.startsWith("AWAITING_"),
  };
}
