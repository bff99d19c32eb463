import { SignerStatus } from "@latchkey/core";
import { useSyncExternalStore } from "react";
import { useSigner } from "./useSigner";

export interface UseSignerStatusResult {
  status: SignerStatus;
  isInitializing: boolean;
  isConnected: boolean;
  isDisconnected: boolean;
  isAuthenticating: boolean;
}

/** The signer's status (spec §3), re-rendering on every change; INITIALIZING during server rendering. */
export function useSignerStatus(): UseSignerStatusResult {
  const signer = useSigner();
  const status = useSyncExternalStore(
    (onChange) => signer.on("statusChanged", onChange),
    () => signer.status,
    () => SignerStatus.INITIALIZING,
  );
  return {
    status,
    isInitializing: status === SignerStatus.INITIALIZING,
    isConnected: status === SignerStatus.CONNECTED,
    isDisconnected: status === SignerStatus.DISCONNECTED,
    isAuthenticating: status.startsWith("AUTHENTICATING_") || status.startsWith("AWAITING_"),
  };
}
