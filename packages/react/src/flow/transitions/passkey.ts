import { isPasskeyCancelled } from "@latchkey/core";
import type { PasskeyRequest } from "../createAuthFlow";
import type { FlowInternals } from "../internals";
import { INITIAL_STEP } from "../store";

/**
 * Passkey sign-in or sign-up (spec §4 "Passkey"): passkey_verify while the browser's prompt is up;
 * success completes, a dismissed prompt returns to initial, any other failure stays on passkey_verify
 * with the error (the connection-error view). Leaving the step (Cancel, Back, Close) aborts the prompt.
 */
export function passkeyTransitions(flow: FlowInternals) {
  const start = async (request: PasskeyRequest = {}): Promise<void> => {
    flow.last.passkey = request;
    flow.go({ type: "passkey_verify" });
    const attempt = flow.beginAttempt("passkey", "passkey_verify");
    try {
      await flow.signer.authenticate({ type: "passkey", ...request, signal: attempt.signal });
      if (!attempt.signal.aborted) flow.complete();
    } catch (error) {
      if (attempt.signal.aborted) return;
      if (isPasskeyCancelled(error)) flow.go(INITIAL_STEP);
      else
        flow.showConnectionError({
          type: "passkey_verify",
          error: error instanceof Error ? error : new Error(String(error)),
        });
    } finally {
      attempt.end();
    }
  };
  return {
    /** Sign in with a passkey, or sign up with `{createNew: true}`. */
    start,
    /** Try again from the passkey error view: the same request as last time. */
    retry: (): Promise<void> => start(flow.last.passkey ?? {}),
  };
}

export type PasskeyTransitions = ReturnType<typeof passkeyTransitions>;
