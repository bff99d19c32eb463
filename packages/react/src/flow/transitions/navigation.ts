import { SignerStatus } from "@latchkey/core";
import type { FlowInternals } from "../internals";
import { backTarget, closeTarget } from "../rules";
import type { AuthStep } from "../step";
import { INITIAL_STEP } from "../store";

/**
 * The modal's chrome (spec §2): where it opens, Back, Close, Cancel, and a sign-in that completed
 * elsewhere.
 */
export function navigationTransitions(flow: FlowInternals) {
  /** The step the modal opens at: email_completing while a magic link is being completed. */
  const initialStep = (): AuthStep => {
    if (flow.signer.status === SignerStatus.AUTHENTICATING_EMAIL) return { type: "email_completing" };
    // An error set while closed (a social sign-in's error in the URL) stays on the initial step.
    const step = flow.step;
    return step.type === "initial" && step.error ? step : INITIAL_STEP;
  };
  return {
    initialStep,

    /** The modal opened: a magic link still completing shows email_completing. */
    opened(): void {
      if (flow.step.type === "initial") flow.go(initialStep());
    },

    /** Cancel, Use another method: back to initial (which aborts an attempt in flight). */
    toInitial(): void {
      flow.reset(flow.store.getState().isOpen);
    },

    back(): void {
      flow.go({ type: backTarget(flow.step.type) });
    },

    /** Close: the rule of spec §2, then the modal closes. */
    close(): void {
      if (closeTarget(flow.step.type) === "complete") flow.complete();
      else flow.reset(false);
    },

    /** The signer connected on its own (a magic link opened in another tab, or completed on load). */
    connected(): void {
      const t = flow.step.type;
      if (t === "email_verify" || t === "email_completing") flow.complete();
    },
  };
}

export type NavigationTransitions = ReturnType<typeof navigationTransitions>;
