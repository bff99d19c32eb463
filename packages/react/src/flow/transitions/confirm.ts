import type { SigningConfirmation } from "@latchkey/core";
import type { AuthFlow, PendingConfirmation } from "../createAuthFlow";
import type { FlowInternals } from "../internals";

/**
 * The signer's confirmation handler (`setSigningConfirmation`), as the modal answers it: when the app's
 * `ui.confirmTransactions` is on or the call asked (`confirm: true`), the modal opens at confirm_signing
 * and the answer is the user's (Confirm → true; Cancel, Close, Escape or another request → false);
 * otherwise true at once. One confirmation at a time: a newer one refuses the older. It takes the flow
 * itself, not its internals: the provider sets it, and the provider's first load stays small.
 */
export function requestSigningConfirmation(
  flow: Pick<AuthFlow, "store" | "getUi" | "confirmations">,
  { request, requested }: SigningConfirmation,
): Promise<boolean> {
  if (!requested && !flow.getUi().confirmTransactions) return Promise.resolve(true);
  const { store, confirmations } = flow;
  confirmations.pending?.resolve(false);
  return new Promise<boolean>((resolve) => {
    let off = () => {};
    const settle: PendingConfirmation = {
      resolve(confirmed) {
        off();
        if (confirmations.pending === settle) delete confirmations.pending;
        resolve(confirmed);
      },
    };
    confirmations.pending = settle;
    store.setState({ isOpen: true, step: { type: "confirm_signing", request } });
    // Leaving the step any other way (Close, Escape, a backdrop click, another step) refuses.
    off = store.subscribe(() => {
      if (confirmations.pending !== settle) return;
      const { isOpen, step } = store.getState();
      if (!isOpen || step.type !== "confirm_signing" || step.request !== request) settle.resolve(false);
    });
  });
}

/** The confirmation step's buttons: either closes the modal and answers the waiting signature. */
export function confirmTransitions(flow: FlowInternals) {
  const answer = (confirmed: boolean) => {
    const settle = flow.confirmations.pending;
    delete flow.confirmations.pending;
    flow.reset(false);
    settle?.resolve(confirmed);
  };
  return {
    /** Signs: the waiting signature goes on. */
    confirm: () => answer(true),
    /** Refuses: the waiting signature fails with USER_REJECTED (4001 from the EIP-1193 provider). */
    cancel: () => answer(false),
  };
}

export type ConfirmTransitions = ReturnType<typeof confirmTransitions>;
