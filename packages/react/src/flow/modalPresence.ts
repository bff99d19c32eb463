import type { AuthUiStore } from "./store";

// Development builds only: the provider and AuthModal call these behind `process.env.NODE_ENV !==
// "production"`, so a production build drops this module.

let warned = false;

export const MISSING_AUTH_MODAL_WARNING =
  '[latchkey] The sign-in modal was opened, but no <AuthModal /> is rendered inside <LatchkeyProvider>, so nothing shows: render <AuthModal /> once inside the provider (beside your app), or use <AuthCard /> inline with ui.mode "embedded".';

/** An `<AuthModal />` of this store is mounted (until the returned function is called). */
export function authModalMounted(store: AuthUiStore): () => void {
  store.mountedModals = (store.mountedModals ?? 0) + 1;
  return () => {
    store.mountedModals = (store.mountedModals ?? 1) - 1;
  };
}

/**
 * Warns once (per page) when the store opens the modal and, `delayMs` later, it is still open with no
 * `<AuthModal />` mounted to show it. Returns the function that stops watching.
 */
export function watchForMissingAuthModal(
  store: AuthUiStore,
  warn: (message: string) => void = console.warn,
  delayMs = 100,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    timer = undefined;
    if (warned || !store.getState().isOpen || (store.mountedModals ?? 0) > 0) return;
    warned = true;
    warn(MISSING_AUTH_MODAL_WARNING);
  };
  const unsubscribe = store.subscribe(() => {
    if (!warned && timer === undefined && store.getState().isOpen) timer = setTimeout(check, delayMs);
  });
  return () => {
    unsubscribe();
    if (timer !== undefined) clearTimeout(timer);
  };
}

/** For tests: warn again. */
export function resetMissingAuthModalWarning(): void {
  warned = false;
}
