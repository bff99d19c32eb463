import { useSyncExternalStore } from "react";
import { useSigner } from "./useSigner";

/** The last sign-in error of the signer (`{name, message}`), or null. */
export function useAuthError(): { name: string; message: string } | null {
  const signer = useSigner();
  return useSyncExternalStore(
    (onChange) => signer.on("errorChanged", onChange),
    () => signer.getState().error,
    () => null,
  );
}
