import type { Signer } from "@latchkey/core";
import { useMemo, useSyncExternalStore } from "react";
import { useLatchkeyContext } from "../context";
import { AuthFlow, type EmailMode } from "../flow/controller";
import type { AuthStep } from "../types";

// The service's signer config (email mode), asked once per signer and kept; asked again after a failure.
const modes = new WeakMap<Signer, Promise<EmailMode>>();
function emailMode(signer: Signer): Promise<EmailMode> {
  let mode = modes.get(signer);
  if (!mode) {
    mode = signer.client
      .signerConfig()
      .then((c): EmailMode => (c.email.mode === "MAGIC_LINK" ? "magicLink" : "otp"));
    mode.catch(() => modes.delete(signer));
    modes.set(signer, mode);
  }
  return mode;
}

/** The step machine of the provider's signer and the current step. */
export function useFlow(): { flow: AuthFlow; step: AuthStep } {
  const { signer, store, uiRef } = useLatchkeyContext();
  const flow = useMemo(
    () =>
      new AuthFlow(
        signer,
        store,
        () => uiRef.current,
        () => emailMode(signer),
      ),
    [signer, store, uiRef],
  );
  const step = useSyncExternalStore(
    store.subscribe,
    () => store.getState().step,
    () => store.getState().step,
  );
  return { flow, step };
}
