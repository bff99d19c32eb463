import type { AuthStep } from "./step";

export interface AuthUiState {
  isOpen: boolean;
  step: AuthStep;
  /**
   * What the provider's connection check found wrong (the service down, a wrong URL, this origin or API
   * key refused, the auth frame silent); undefined while unchecked or when all is well.
   */
  serviceProblem?: { code: string; message: string };
}

/** The modal's state in a small vanilla store: no framework needed to hold or change it. */
export interface AuthUiStore {
  getState(): AuthUiState;
  setState(patch: Partial<AuthUiState>): void;
  subscribe(listener: () => void): () => void;
  /** The `<AuthModal />`s that show this store (counted in development builds: flow/modalPresence.ts). */
  mountedModals?: number;
}

export const INITIAL_STEP: AuthStep = { type: "initial" };

export function createAuthUiStore(): AuthUiStore {
  let state: AuthUiState = { isOpen: false, step: INITIAL_STEP };
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    setState(patch) {
      state = { ...state, ...patch };
      for (const l of [...listeners]) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
