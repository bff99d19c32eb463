import type { User } from "@latchkey/core";
import { useSyncExternalStore } from "react";
import { useSigner } from "./useSigner";

/** The signed-in user (EVM address, Solana address, email...) or null. */
export function useUser(): User | null {
  const signer = useSigner();
  return useSyncExternalStore(
    (onChange) => {
      const offs = [signer.on("statusChanged", onChange), signer.on("disconnected", onChange)];
      return () => {
        for (const off of offs) off();
      };
    },
    () => signer.user,
    () => null,
  );
}
