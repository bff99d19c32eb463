import { type Signer, SignerStatus } from "@latchkey/core";
import type { ResolvedUiConfig } from "../config";
import type { AuthStep } from "./step";
import type { AuthUiStore } from "./store";

/**
 * What opens the modal or changes its step from outside (spec §4): add-passkey-on-signup, an account
 * linking prompt, and a social sign-in error in the URL. Returns the unsubscribe. Loaded with the
 * provider (the modal's views are not, yet), so it stays small.
 */
export function registerTriggers({
  signer,
  store,
  getUi,
}: {
  signer: Signer;
  store: AuthUiStore;
  getUi: () => ResolvedUiConfig;
}): () => void {
  let live = true;
  // Modal mode opens the dialog at the step; embedded mode only moves the inline card to it.
  const open = (step: AuthStep) =>
    store.setState(getUi().mode === "embedded" ? { step } : { isOpen: true, step });

  // Account linking (spec §4 "Social sign-in"): the modal opens at otp_verify with the provider's
  // email (in modal mode); the code links the provider.
  const linkingRequired = (email: string) => open({ type: "otp_verify", email, status: "base" });

  // Add-passkey-on-signup: after `newUserSignup`, once the new user is connected and the modal is
  // closed (embedded: the card is back at initial). Once per session (reset on disconnect); not for a user who signed up with a passkey.
  let pending = false;
  let shown = false;
  const offerPasskey = () => {
    // Not over a step in progress: the closed modal, or the inline card back at its first step.
    const { isOpen, step } = store.getState();
    const busy = getUi().mode === "embedded" ? step.type !== "initial" : isOpen;
    if (!pending || shown || signer.status !== SignerStatus.CONNECTED || busy) return;
    pending = false;
    if (!getUi().addPasskeyOnSignup || !signer.user || signer.user.credentialId) return;
    shown = true;
    open({ type: "passkey_create", status: "base" });
  };

  const offs = [
    signer.on("newUserSignup", () => {
      pending = true;
      offerPasskey();
    }),
    signer.on("statusChanged", offerPasskey),
    signer.on("disconnected", () => {
      pending = false;
      shown = false;
    }),
    store.subscribe(offerPasskey),
    signer.on("emailAuthLinkingRequired", ({ email }) => {
      if (store.getState().step.type !== "otp_verify") linkingRequired(email);
    }),
  ];
  // What the signer found on load: a linking prompt or a social sign-in's error from a redirect.
  void signer
    .init()
    .then(() => {
      if (!live) return;
      const { authLinkingStatus, error, status } = signer.getState();
      if (authLinkingStatus && status === SignerStatus.AWAITING_OTP_AUTH)
        linkingRequired(authLinkingStatus.email);
      // A social sign-in's error from the URL is the initial step's error (spec §4 "Errors and reset").
      else if (error?.name === "AuthError" && store.getState().step.type === "initial")
        store.setState({ step: { type: "initial", error: new Error(error.message) } });
    })
    .catch(() => {});
  return () => {
    live = false;
    for (const off of offs) off();
  };
}
