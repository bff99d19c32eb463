import { SignerStatus } from "@latchkey/core";
import { OTP_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import { otpErrorText } from "../errors";
import type { FlowInternals } from "../internals";

/** The email code (spec §4 "OTP"); also completes an account-linking prompt (the code links the provider). */
export function otpTransitions(flow: FlowInternals) {
  return {
    /** Submits the six digits; returns the text to show when it failed (the boxes clear). */
    async submit(otpCode: string): Promise<string | null> {
      const step = flow.step;
      if (step.type !== "otp_verify") return null;
      flow.go({ ...step, status: "verifying", error: undefined });
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
        const text = otpErrorText(error, flow.getTexts());
        if (flow.step.type === "otp_verify") flow.go({ ...step, status: "base", error: new Error(text) });
        return text;
      }
    },
  };
}

export type OtpTransitions = ReturnType<typeof otpTransitions>;
