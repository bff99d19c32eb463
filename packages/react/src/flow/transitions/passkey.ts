import { isPasskeyCancelled } from "@latchkey/core";
import { PASSKEY_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import { strings } from "../strings";
import type { AuthEventName } from "../types";
import type { AuthFlow } from "./controller";
import { type AuthUiStore, INITIAL_STEP } from "./store";

export interface PasskeyRequest {
  /** Create a new passkey and account with it (sign-up), instead of signing in with one. */
  createNew?: boolean;
  /** With an email that has no account yet, a passkey is created too (spec §4). */
  email?: string;
}

// Per modal (its store): the pending prompt, and what the last one asked for (Try again repeats it).
const pendingPrompts = new WeakMap<AuthUiStore, AbortController>();
const lastRequests = new WeakMap<AuthUiStore, PasskeyRequest>();

/**
 * Passkey sign-in or sign-up (spec §4): passkey_verify while the browser's prompt is up; success
 * completes, a dismissed prompt returns to initial, any other failure stays on passkey_verify with the
 * error. Leaving the step (Cancel, Back, Close) aborts the prompt.
 */
export async function startPasskey(flow: AuthFlow, request: PasskeyRequest = {}): Promise<void> {
  const { store, signer } = flow;
  pendingPrompts.get(store)?.abort();
  const controller = new AbortController();
  pendingPrompts.set(store, controller);
  lastRequests.set(store, request);
  flow.go({ type: "passkey_verify" });
  const off = store.subscribe(() => {
    if (store.getState().step.type !== "passkey_verify") controller.abort();
  });
  try {
    await signer.authenticate({ type: "passkey", ...request, signal: controller.signal });
    if (!controller.signal.aborted) flow.complete();
  } catch (error) {
    if (controller.signal.aborted) return;
    if (isPasskeyCancelled(error)) flow.go(INITIAL_STEP);
    else
      flow.go({ type: "passkey_verify", error: error instanceof Error ? error : new Error(String(error)) });
  } finally {
    off();
    if (pendingPrompts.get(store) === controller) pendingPrompts.delete(store);
  }
}

/** Try again from the passkey error view: the same request as last time. */
export function retryPasskey(flow: AuthFlow): Promise<void> {
  return startPasskey(flow, lastRequests.get(flow.store) ?? {});
}

function track(flow: AuthFlow, name: AuthEventName): void {
  try {
    flow.getUi().onEvent?.({ name });
  } catch {
    // The host's analytics must not break the modal.
  }
}

/**
 * passkey_create's Continue: adds a passkey to the signed-in user. Success shows passkey_create_success
 * and completes after 5 s; a failure stays on passkey_create with 'Failed to add passkey'.
 */
export async function addPasskey(flow: AuthFlow): Promise<void> {
  const { store, signer } = flow;
  const controller = new AbortController();
  flow.go({ type: "passkey_create", status: "verifying" });
  const off = store.subscribe(() => {
    if (store.getState().step.type !== "passkey_create") controller.abort();
  });
  try {
    await signer.addPasskey({ signal: controller.signal });
    if (controller.signal.aborted) return;
    flow.go({ type: "passkey_create_success", status: "success" });
    track(flow, "add_passkey_on_signup_success");
    flow.setTimer(() => {
      if (flow.step.type === "passkey_create_success") flow.complete();
    }, PASSKEY_SUCCESS_DELAY_MS);
  } catch (error) {
    if (controller.signal.aborted) return;
    flow.go({
      type: "passkey_create",
      status: "base",
      error: new Error(strings.failedToAddPasskey, { cause: error }),
    });
  } finally {
    off();
  }
}

/** passkey_create's Skip: tracked, then complete. */
export function skipAddPasskey(flow: AuthFlow): void {
  track(flow, "add_passkey_on_signup_skip");
  flow.complete();
}
