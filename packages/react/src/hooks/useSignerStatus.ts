import { type SignerState, SignerStatus } from "@latchkey/core";
import { useSignerState } from "./useSignerState";

export interface UseSignerStatusResult {
  status: SignerStatus;
  isInitializing: boolean;
  isConnected: boolean;
  isDisconnected: boolean;
  isAuthenticating: boolean;
}

/** The signer's status (spec §3), re-rendering on every change; INITIALIZING during server rendering. */
const selectStatus = (state: SignerState) => state.status;

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
