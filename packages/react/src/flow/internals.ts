import { SIGNUP_URL_PARAM, type Signer, SignerStatus } from "@latchkey/core";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { ResolvedUiConfig } from "../config";
import type { Texts } from "../texts/types";
import type { AuthEventName } from "../types";
import type { AuthFlow, EmailMode } from "./createAuthFlow";
import { custodyStep } from "./custody";
import type { AuthStep, AuthStepType } from "./step";
import { type AuthUiStore, INITIAL_STEP } from "./store";

/** One in-flight attempt: its signal aborts when another attempt of its kind starts or its step is left. */
export interface Attempt {
  readonly signal: AbortSignal;
  /** Stops watching the step; call it when the attempt settles. */
  end(): void;
}

/** What a transition (`transitions/*.ts`) uses: the flow's state, and the moves every method shares. */
export interface FlowInternals {
  readonly signer: Signer;
  readonly store: AuthUiStore;
  /** The current UI config (read on use: the host may change it between renders). */
  getUi(): ResolvedUiConfig;
  /** The current texts (the provider's locale and overrides). */
  getTexts(): Texts;
  setTimer(fn: () => void, ms: number): unknown;
  /** What the last attempt of each kind asked for: Try again repeats it. */
  readonly last: AuthFlow["last"];
  /** The grant request the consent step answers, while it waits. */
  readonly grants: AuthFlow["grants"];
  /** The signature the confirmation step answers, while it waits. */
  readonly confirmations: AuthFlow["confirmations"];
  readonly step: AuthStep;
  go(step: AuthStep): void;
  /** Opens the modal at `step`. */
  open(step: AuthStep): void;
  /**
   * The `complete` step: the modal closes and the host's onAuthSuccess runs — after the split-custody
   * steps the signed-in user's wallet needs (flow/custody.ts), which come first.
   */
  complete(): void;
  /** `complete` without the split-custody steps (they call it when done). */
  finish(): void;
  /**
   * Reset (spec §4 "Errors and reset"): back to initial, open or closed, and the signup marker leaves
   * the address bar.
   */
  reset(isOpen: boolean): void;
  /**
   * Shows a connection-error view (spec §8) and disconnects the signer, as spec §4 asks of it ("Errors
   * and reset"). The add-passkey failure does not use this: the user stays signed in.
   */
  showConnectionError(step: AuthStep): void;
  /** The email mode of the service's signer config: asked once, asked again after a failure. */
  getEmailMode(): Promise<EmailMode>;
  /** Starts an attempt of `kind` on `stepType`, aborting the previous attempt of that kind. */
  beginAttempt(kind: keyof AuthFlow["attempts"], stepType: AuthStepType): Attempt;
  /** Analytics (spec §7); the host's callback must not break the modal. */
  track(name: AuthEventName): void;
}

/** The flow with the shared moves, over its own state: no state of its own, so binding again is free. */
export function flowInternals(flow: AuthFlow): FlowInternals {
  const { signer, store, attempts, getUi, getTexts, setTimer, last, grants, confirmations } = flow;
  const internals: FlowInternals = {
    signer,
    store,
    getUi,
    getTexts,
    setTimer,
    last,
    grants,
    confirmations,
    get step() {
      return store.getState().step;
    },
    go: (step) => store.setState({ step }),
    open: (step) => store.setState({ isOpen: true, step }),
    complete() {
      const next = custodyStep(signer, internals.step);
      if (next) internals.go(next);
      else internals.finish();
    },
    finish() {
      internals.reset(false);
      getUi().onAuthSuccess?.();
    },
    reset(isOpen) {
      store.setState({ isOpen, step: INITIAL_STEP });
      removeSignupParam();
    },
    showConnectionError(step) {
      internals.go(step);
      const { status } = signer;
      if (status !== SignerStatus.DISCONNECTED && status !== SignerStatus.INITIALIZING)
        void signer.disconnect().catch(() => {});
    },
    getEmailMode() {
      if (!flow.emailMode) {
        const mode = signer.client
          .call(signerRoutes.signerConfig, {})
          .then((c): EmailMode => (c.email.mode === "MAGIC_LINK" ? "magicLink" : "otp"));
        mode.catch(() => {
          if (flow.emailMode === mode) flow.emailMode = undefined;
        });
        flow.emailMode = mode;
      }
      return flow.emailMode;
    },
    beginAttempt(kind, stepType) {
      attempts[kind]?.abort();
      const controller = new AbortController();
      attempts[kind] = controller;
      const off = store.subscribe(() => {
        if (store.getState().step.type !== stepType) controller.abort();
      });
      return {
        signal: controller.signal,
        end() {
          off();
          if (attempts[kind] === controller) delete attempts[kind];
        },
      };
    },
    track(name) {
      try {
        getUi().onEvent?.({ name });
      } catch {
        // The host's analytics must not break the modal.
      }
    },
  };
  return internals;
}

/** Takes the signup marker out of the address bar (history.replaceState: no reload, no new entry). */
function removeSignupParam(): void {
  const w = globalThis as { location?: { href: string }; history?: History };
  if (!w.location || !w.history) return;
  const url = new URL(w.location.href);
  if (!url.searchParams.has(SIGNUP_URL_PARAM)) return;
  url.searchParams.delete(SIGNUP_URL_PARAM);
  w.history.replaceState(w.history.state, "", url.toString());
}
