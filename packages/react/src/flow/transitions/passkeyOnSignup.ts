import { type Signer, SignerStatus } from "@latchkey/core";
import type { AuthUiStore } from "./store";

/**
 * Add-passkey-on-signup (spec §4): after `newUserSignup`, once the new user is connected and the modal
 * is closed, the modal opens at passkey_create. Once per session (reset on disconnect); not for a user
 * who signed up with a passkey. Returns the unsubscribe.
 */
export function watchPasskeyOnSignup(
  signer: Signer,
  store: AuthUiStore,
  addPasskeyOnSignup: () => boolean,
): () => void {
  let pending = false;
  let shown = false;
  const check = () => {
    if (!pending || shown || signer.status !== SignerStatus.CONNECTED || store.getState().isOpen) return;
    pending = false;
    if (!addPasskeyOnSignup() || !signer.user || signer.user.credentialId) return;
    shown = true;
    store.setState({ isOpen: true, step: { type: "passkey_create", status: "base" } });
  };
  const offs = [
    signer.on("newUserSignup", () => {
      pending = true;
      check();
    }),
    signer.on("statusChanged", check),
    signer.on("disconnected", () => {
      pending = false;
      shown = false;
    }),
    store.subscribe(check),
  ];
  return () => {
    for (const off of offs) off();
  };
}
