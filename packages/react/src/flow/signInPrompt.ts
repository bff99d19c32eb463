import type { Signer } from "@latchkey/core";
import { type AuthUiStore, INITIAL_STEP } from "./store";

/**
 * The provider's sign-in prompt (core's `setSignInPrompt`): a dapp connecting while nobody is signed in
 * (wagmi's `connect`, RainbowKit's wallet, `eth_requestAccounts`) opens this modal. It resolves when
 * someone signs in, and rejects when the modal closes first.
 */
export function modalSignInPrompt(signer: Pick<Signer, "on">, store: AuthUiStore): () => Promise<void> {
  return () =>
    new Promise<void>((resolve, reject) => {
      const done = () => {
        offConnected();
        offStore();
      };
      const offConnected = signer.on("connected", () => {
        done();
        resolve();
      });
      const offStore = store.subscribe(() => {
        if (store.getState().isOpen) return;
        done();
        reject(new Error("The sign-in modal was closed"));
      });
      store.setState({ isOpen: true, step: INITIAL_STEP });
    });
}
