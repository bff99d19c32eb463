import { PASSKEY_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import type { FlowInternals } from "../internals";

/**
 * Add-passkey-on-signup (spec §4 "Passkey"): the modal offers a passkey to a new user (flow/triggers.ts
 * opens it at passkey_create); Continue adds
 * it (passkey_create_success, complete after 5 s), a failure stays on passkey_create with 'Failed to add
 * passkey' (the user stays signed in), Skip completes. Both outcomes are tracked (spec §7).
 */
export function passkeyOnSignupTransitions(flow: FlowInternals) {
  return {
    /** passkey_create's Continue (and Try again): adds a passkey to the signed-in user. */
    async add(): Promise<void> {
      flow.go({ type: "passkey_create", status: "verifying" });
      const attempt = flow.beginAttempt("passkey", "passkey_create");
      try {
        await flow.signer.addPasskey({ signal: attempt.signal });
        if (attempt.signal.aborted) return;
        flow.go({ type: "passkey_create_success", status: "success" });
        flow.track("add_passkey_on_signup_success");
        flow.setTimer(() => {
          if (flow.step.type === "passkey_create_success") flow.complete();
        }, PASSKEY_SUCCESS_DELAY_MS);
      } catch (error) {
        if (attempt.signal.aborted) return;
        flow.go({
          type: "passkey_create",
          status: "base",
          error: new Error(flow.getTexts().failedToAddPasskey, { cause: error }),
        });
      } finally {
        attempt.end();
      }
    },

    /** passkey_create's Skip: tracked, then complete. */
    skip(): void {
      flow.track("add_passkey_on_signup_skip");
      flow.complete();
    },
  };
}

export type PasskeyOnSignupTransitions = ReturnType<typeof passkeyOnSignupTransitions>;
