import { MfaRequiredError } from "@latchkey/core";
import { OTP_TTL_MS } from "@latchkey/protocol/constants";
import type { EmailMode } from "../createAuthFlow";
import { failureOf } from "../errors";
import type { FlowInternals } from "../internals";

/** Email sign-in (spec §4 "Email"): send the code or link, resend it from the verify steps. */
export function emailTransitions(flow: FlowInternals) {
  const send = async (email: string, emailMode: EmailMode) => {
    const result = await flow.signer.authenticate({ type: "email", email, emailMode });
    expireAfterTtl(email);
    return result;
  };

  /**
   * A code or link lives OTP_TTL_MS: a verify step still waiting for this one then shows 'Connection
   * timed out' (spec §8), whose Try again mails a new one. A newer mail re-arms it.
   */
  const expireAfterTtl = (email: string): void => {
    const mail = (flow.last.mail ?? 0) + 1;
    flow.last.mail = mail;
    flow.setTimer(() => {
      const step = flow.step;
      if (flow.last.mail !== mail) return;
      if (step.type === "otp_verify" && step.email === email && step.status !== "success" && !step.failure)
        flow.showConnectionError({ ...step, status: "base", error: undefined, failure: "timeout" });
      else if (step.type === "email_verify" && step.email === email && !step.failure)
        flow.showConnectionError({ ...step, failure: "timeout" });
    }, OTP_TTL_MS);
  };

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
    const failure = failureOf(error) === "permission" ? ("permission" as const) : undefined;
    flow.go({
      type: "initial",
      error: error instanceof Error ? error : new Error(String(error)),
      ...(failure ? { failure } : {}),
    });
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

    /** Try again on a verify step's timeout view: a new code or link to the same address. */
    async again(): Promise<void> {
      const step = flow.step;
      if (step.type !== "email_verify" && step.type !== "otp_verify") return;
      if (step.type === "otp_verify") flow.go({ type: "otp_verify", email: step.email, status: "base" });
      else flow.go({ type: "email_verify", email: step.email, status: "base" });
      try {
        await send(step.email, step.type === "email_verify" ? "magicLink" : "otp");
      } catch (error) {
        failed(error, step.email, step.type === "email_verify" ? "magicLink" : "otp");
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
