import { useCallback, useSyncExternalStore } from "react";
import { useLatchkeyContext } from "../context";
import type { AuthStep } from "../flow/step";
import { INITIAL_STEP } from "../flow/store";

/**
 * Opens and closes the sign-in modal (render `<AuthModal />` once inside the provider).
 *
 * @example
 * const { openAuthModal } = useAuthModal();
 * <button onClick={() => openAuthModal()}>Sign in</button>
 */
export function useAuthModal() {
  const { store } = useLatchkeyContext();
  const isOpen = useSyncExternalStore(
    store.subscribe,
    () => store.getState().isOpen,
    () => false,
  );
  const openAuthModal = useCallback(
    (options?: { step?: AuthStep }) =>
      store.setState({ isOpen: true, ...(options?.step ? { step: options.step } : {}) }),
    [store],
  );
  const closeAuthModal = useCallback(() => store.setState({ isOpen: false, step: INITIAL_STEP }), [store]);
  return { isOpen, openAuthModal, closeAuthModal };
}
