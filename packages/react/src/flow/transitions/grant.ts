import { createGrant, type Grant, type StepUp, stepUpMethodsOf } from "@latchkey/core";
import type { GrantPermissionsInput } from "@latchkey/protocol";
import type { PendingGrant } from "../createAuthFlow";
import type { FlowInternals } from "../internals";

/** Thrown to `requestGrant`'s caller when the user declines (or closes the modal). */
export class GrantDeclinedError extends Error {
  override name = "GrantDeclinedError" as const;
  readonly code = "USER_REJECTED" as const;
  constructor() {
    super("The user declined the permission");
  }
}

/**
 * Opens the modal at the consent step for `permissions` and settles when the user decides: with the grant
 * made (Allow), or a GrantDeclinedError (Decline, Close, or another request taking its place). The user
 * must be signed in. One request at a time per modal: it waits in the flow (`flow.grants.pending`).
 */
export function requestGrantConsent(flow: FlowInternals, permissions: GrantPermissionsInput): Promise<Grant> {
  const { store, grants } = flow;
  if (!flow.signer.store.getState().user)
    return Promise.reject(new Error("Sign in first: a grant is made by the signed-in user"));
  grants.pending?.reject(new GrantDeclinedError());
  return new Promise<Grant>((resolve, reject) => {
    let off = () => {};
    const settle: PendingGrant = {
      resolve(grant) {
        off();
        if (grants.pending === settle) delete grants.pending;
        resolve(grant);
      },
      reject(reason) {
        off();
        if (grants.pending === settle) delete grants.pending;
        reject(reason);
      },
    };
    grants.pending = settle;
    flow.open({ type: "grant_consent", permissions });
    // Leaving the step any other way (Close, Escape, a backdrop click) declines.
    off = store.subscribe(() => {
      if (grants.pending !== settle) return;
      const { isOpen, step } = store.getState();
      if (!isOpen || step.type !== "grant_consent") settle.reject(new GrantDeclinedError());
    });
  });
}

/**
 * The consent step's buttons: Allow makes the grant, Decline refuses it; either closes the modal. Making a
 * grant needs a fresh sign-in: when the service asks for one (STEP_UP_REQUIRED) the step shows the
 * step-up prompt, and Allow runs again with the proof (`allow(stepUp)`).
 */
export function grantTransitions(flow: FlowInternals) {
  return {
    /** Makes the grant (with `stepUp`, the proof the prompt got); answers the error to show, or null. */
    async allow(stepUp?: StepUp): Promise<Error | null> {
      const step = flow.step;
      if (step.type !== "grant_consent" || step.status === "verifying") return null;
      const settle = flow.grants.pending;
      const { error: _shown, ...asked } = step;
      flow.go({ ...asked, status: "verifying" });
      try {
        const grant = await createGrant(flow.signer, step.permissions, stepUp ? { stepUp } : {});
        // Answered before the modal closes, so that closing does not decline it.
        delete flow.grants.pending;
        flow.reset(false);
        settle?.resolve(grant);
        return null;
      } catch (e) {
        const error = e instanceof Error ? e : new Error(String(e));
        const methods = stepUpMethodsOf(e);
        // The first refusal only asks for the step-up; a refused proof is an error to show.
        const prompt = methods !== undefined && !stepUp;
        const stepUpMethods = methods ?? step.stepUpMethods;
        flow.go({
          type: "grant_consent",
          permissions: step.permissions,
          status: "base",
          ...(stepUpMethods ? { stepUpMethods } : {}),
          ...(prompt ? {} : { error }),
        });
        return prompt ? null : error;
      }
    },
    /** Leaves the step-up prompt for the consent's own buttons. */
    back(): void {
      const step = flow.step;
      if (step.type !== "grant_consent" || step.status === "verifying") return;
      flow.go({ type: "grant_consent", permissions: step.permissions, status: "base" });
    },
    decline(): void {
      const settle = flow.grants.pending;
      delete flow.grants.pending;
      flow.reset(false);
      settle?.reject(new GrantDeclinedError());
    },
  };
}

export type GrantTransitions = ReturnType<typeof grantTransitions>;
