import type { SignerState } from "@latchkey/core";
import { useSyncExternalStore } from "react";
import { useSigner } from "./useSigner";

/**
 * One slice of the signer's state, re-rendering when that slice changes (the signer's store, as wagmi's
 * hooks select from its config's store). `serverValue` is what server rendering shows.
 */
export function useSignerState<T>(select: (state: SignerState) => T, serverValue: T): T {
  const signer = useSigner();
  return useSyncExternalStore(
    (onChange) => signer.store.subscribe(select, onChange),
    () => select(signer.store.getState()),
    () => serverValue,
  );
}
