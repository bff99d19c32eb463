import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from "react";
import { createPortal } from "react-dom";
import { useLatchkeyContext } from "../context";
import { authModalMounted } from "../flow/modalPresence";
import { useModalTriggers } from "../hooks/useModalTriggers";

const loadDialog = () => import("./ModalDialog");
const ModalDialog = lazy(loadDialog);

/**
 * The sign-in modal: render it once inside the provider, open it with `useAuthModal().openAuthModal()`.
 * Closes on Escape and backdrop click, keeps Tab inside, and renders nothing on the server. The dialog's
 * code is fetched when the browser is idle (or on first open), so it costs the page's first load nothing.
 *
 * @example
 * <LatchkeyProvider config={config}>
 *   <App />
 *   <AuthModal />
 * </LatchkeyProvider>
 */
export function AuthModal() {
  const { store } = useLatchkeyContext();
  const isOpen = useSyncExternalStore(
    store.subscribe,
    () => store.getState().isOpen,
    () => false,
  );
  useModalTriggers();
  useEffect(() => {
    // Development builds only: tells the provider's missing-modal warning that this modal is here.
    if (process.env.NODE_ENV !== "production") return authModalMounted(store);
  }, [store]);
  const [mounted, setMounted] = useState(false);
  useEffect(() => {
    setMounted(true);
    const idle = (globalThis as { requestIdleCallback?: (fn: () => void) => number }).requestIdleCallback;
    const preload = () => void loadDialog().catch(() => {});
    if (idle) idle(preload);
    else setTimeout(preload, 1);
  }, []);
  if (!mounted || !isOpen) return null;
  return createPortal(
    <Suspense fallback={null}>
      <ModalDialog />
    </Suspense>,
    document.body,
  );
}
