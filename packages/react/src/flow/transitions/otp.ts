import { SignerStatus } from "@latchkey/core";
import { OTP_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import { failureOf, otpErrorText } from "../errors";
import type { FlowInternals } from "../internals";

/** The email code (spec §4 "OTP"); also completes an account-linking prompt (the code links the provider). */
export function otpTransitions(flow: FlowInternals) {
  const transitions = {
    /** Submits the six digits; returns the text to show when it failed (the boxes clear). */
    async submit(otpCode: string): Promise<string | null> {
      const step = flow.step;
      if (step.type !== "otp_verify") return null;
      flow.last.code = otpCode;
      flow.go({ ...step, status: "verifying", error: undefined, failure: undefined });
      try {
        const result = await flow.signer.authenticate({ type: "otp", otpCode });
        if (result.status === SignerStatus.AWAITING_MFA_AUTH) {
          const factorId = flow.signer.getState().mfaStatus.mfaFactorId;
          flow.go({
            type: "totp_verify",
            status: "base",
            previousStep: "otp",
            email: step.email,
            ...(factorId ? { factorId } : {}),
          });
          return null;
        }
        flow.go({ ...step, status: "success", error: undefined });
        flow.setTimer(() => {
          if (flow.step.type === "otp_verify") flow.complete();
        }, OTP_SUCCESS_DELAY_MS);
        return null;
      } catch (error) {
        // The service unreachable, the code expired, or the request refused: an error view (spec §8).
        const failure = failureOf(error);
        if (failure) {
          // Unreachable: the sign-in stays pending, so Try again can send the same code (the view does
          // not disconnect). Expired or refused: it ends, as the error views do by default (spec §4).
          const view = { ...step, status: "base" as const, error: undefined, failure };
          if (flow.step.type !== "otp_verify") return null;
          if (failure === "connection") flow.go(view);
          else flow.showConnectionError(view);
          return null;
        }
        const text = otpErrorText(error, flow.getTexts());
        if (flow.step.type === "otp_verify") flow.go({ ...step, status: "base", error: new Error(text) });
        return text;
      }
    },

    /**
     * Try again on the OTP error views: after a connection failure the same code is sent again (the
     * sign-in is still pending); after a refusal the boxes come back. (A timeout mails a new code:
     * `email.again`.)
     */
    async retry(): Promise<void> {
      const step = flow.step;
      if (step.type !== "otp_verify" || !step.failure) return;
      const code = flow.last.code;
      flow.go({ ...step, status: "base", error: undefined, failure: undefined });
      if (step.failure === "connection" && code) await transitions.submit(code);
    },
  };
  return transitions;
}

export type OtpTransitions = ReturnType<typeof otpTransitions>;
