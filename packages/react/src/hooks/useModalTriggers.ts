import { type Signer, SignerStatus } from "@latchkey/core";
import { useEffect } from "react";
import type { ResolvedUiConfig } from "../config";
import { useLatchkeyContext } from "../context";
import { watchPasskeyOnSignup } from "../flow/passkeyOnSignup";
import type { AuthUiStore } from "../flow/store";

/** One set of triggers per store, however many AuthModal and AuthCard components render it. */
const held = new WeakMap<AuthUiStore, { count: number; dispose: () => void }>();

/**
 * What opens the modal or changes its step from outside (spec §4): add-passkey-on-signup, an account
 * linking prompt (opens at otp_verify with the provider's email), and a social sign-in error in the URL
 * (the initial step's error). Both AuthModal and AuthCard run them; they register once per provider.
 */
export function useModalTriggers(): void {
  const { signer, store, uiRef } = useLatchkeyContext();
  useEffect(() => {
    const current = held.get(store);
    if (current) current.count++;
    else held.set(store, { count: 1, dispose: registerTriggers(signer, store, uiRef) });
    return () => {
      const entry = held.get(store);
      if (!entry || --entry.count > 0) return;
      held.delete(store);
      entry.dispose();
    };
  }, [signer, store, uiRef]);
}

function registerTriggers(
  signer: Signer,
  store: AuthUiStore,
  uiRef: { current: ResolvedUiConfig },
): () => void {
  let live = true;
  const openLinking = (email: string) =>
    store.setState({ isOpen: true, step: { type: "otp_verify", email, status: "base" } });
  const offs = [
    watchPasskeyOnSignup(signer, store, () => uiRef.current.addPasskeyOnSignup),
    signer.on("emailAuthLinkingRequired", ({ email }) => {
      if (store.getState().step.type !== "otp_verify") openLinking(email);
    }),
  ];
  void signer
    .init()
    .then(() => {
      if (!live) return;
      const { authLinkingStatus, error, status } = signer.getState();
      if (authLinkingStatus && status === SignerStatus.AWAITING_OTP_AUTH)
        openLinking(authLinkingStatus.email);
      else if (error?.name === "AuthError" && store.getState().step.type === "initial")
        store.setState({ step: { type: "initial", error: new Error(error.message) } });
    })
    .catch(() => {});
  return () => {
    live = false;
    for (const off of offs) off();
  };
}
