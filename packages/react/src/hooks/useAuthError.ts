import type { SignerStateError } from "@latchkey/core";
import { useSyncExternalStore } from "react";
import { useSigner } from "./useSigner";

/** The last sign-in error of the signer (`{name, code, message}`; `code` is stable, for branching), or null. */
export function useAuthError(): SignerStateError | null {
  const signer = useSigner();
  return useSyncExternalStore(
    (onChange) => signer.on("errorChanged", onChange),
    () => signer.getState().error,
    () => null,
  );
}
