import { MfaRequiredError } from "@latchkey/core";
import type { EmailMode } from "../createAuthFlow";
import type { FlowInternals } from "../internals";

/** Email sign-in (spec §4 "Email"): send the code or link, resend it from the verify steps. */
export function emailTransitions(flow: FlowInternals) {
  const send = (email: string, emailMode: EmailMode) =>
    flow.signer.authenticate({ type: "email", email, emailMode });

  const failed = (error: unknown, email: string, mode: EmailMode): void => {
    if (error instanceof MfaRequiredError) {
      const factorId = error.multiFactors[0]?.multiFactorId;
      flow.go({
        type: "totp_verify",
        email,
        status: "base",
        previousStep: mode,
        ...(factorId ? { factorId } : {}),
      });
      return;
    }
    flow.go({ type: "initial", error: error instanceof Error ? error : new Error(String(error)) });
  };

  return {
    /** Sends the code or link. OTP mode shows the boxes at once; magic-link mode waits for the mail. */
    async submit(email: string): Promise<void> {
      const mode = await flow.getEmailMode().catch(() => "otp" as const);
      if (mode === "otp") flow.go({ type: "otp_verify", email, status: "base" });
      try {
        await send(email, mode);
        if (mode === "magicLink") flow.go({ type: "email_verify", email, status: "base" });
      } catch (error) {
        failed(error, email, mode);
      }
    },

    /** Resend from the verify steps; stays on the step. */
    async resend(): Promise<void> {
      const step = flow.step;
      if ((step.type !== "email_verify" && step.type !== "otp_verify") || !step.email) return;
      const mode: EmailMode = step.type === "email_verify" ? "magicLink" : "otp";
      try {
        await send(step.email, mode);
      } catch (error) {
        failed(error, step.email, mode);
        throw error;
      }
    },
  };
}

export type EmailTransitions = ReturnType<typeof emailTransitions>;
