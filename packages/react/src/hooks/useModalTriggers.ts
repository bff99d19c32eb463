import { SignerStatus } from "@latchkey/core";
import { useEffect } from "react";
import { useLatchkeyContext } from "../context";
import { watchPasskeyOnSignup } from "../flow/passkeyOnSignup";

/**
 * What opens the modal or changes its step from outside (spec §4): add-passkey-on-signup, an account
 * linking prompt (opens at otp_verify with the provider's email), and a social sign-in error in the URL
 * (the initial step's error).
 */
export function useModalTriggers(): void {
  const { signer, store, uiRef } = useLatchkeyContext();
  useEffect(() => {
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
  }, [signer, store, uiRef]);
}
