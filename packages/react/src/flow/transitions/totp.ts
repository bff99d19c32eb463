import { failureOf, totpErrorText } from "../errors";
import type { FlowInternals } from "../internals";

/** The authenticator-app code (spec §4 "TOTP"), for the sign-in that asked for it. */
export function totpTransitions(flow: FlowInternals) {
  const transitions = {
    /** Submits the six digits; returns the text to show when it failed (the boxes clear). */
    async submit(code: string): Promise<string | null> {
      const step = flow.step;
      if (step.type !== "totp_verify") return null;
      flow.last.code = code;
      flow.go({ ...step, status: "verifying", error: undefined, failure: undefined });
      try {
        if (step.previousStep === "magicLink" && step.email) {
          await flow.signer.authenticate({
            type: "email",
            email: step.email,
            emailMode: "magicLink",
            multiFactors: [{ multiFactorId: step.factorId ?? "", multiFactorCode: code }],
          });
          flow.go({ type: "email_verify", email: step.email, status: "base" });
          return null;
        }
        await flow.signer.validateMultiFactors({
          multiFactorCode: code,
          ...(step.factorId ? { multiFactorId: step.factorId } : {}),
        });
        flow.go({ ...step, status: "success" });
        flow.complete();
        return null;
      } catch (error) {
        const failure = failureOf(error);
        if (failure) {
          // Unreachable: the sign-in stays pending, so Try again can send the same code (the view does
          // not disconnect). Expired or refused: it ends, as the error views do by default (spec §4).
          const view = { ...step, status: "base" as const, error: undefined, failure };
          if (flow.step.type !== "totp_verify") return null;
          if (failure === "connection") flow.go(view);
          else flow.showConnectionError(view);
          return null;
        }
        const text = totpErrorText(error, flow.getTexts());
        if (flow.step.type === "totp_verify") flow.go({ ...step, status: "base", error: new Error(text) });
        return text;
      }
    },

    /** Try again on the error views: the same code again after a connection failure, else the boxes. */
    async retry(): Promise<void> {
      const step = flow.step;
      if (step.type !== "totp_verify" || !step.failure) return;
      const code = flow.last.code;
      flow.go({ ...step, status: "base", error: undefined, failure: undefined });
      if (step.failure === "connection" && code) await transitions.submit(code);
    },
  };
  return transitions;
}

export type TotpTransitions = ReturnType<typeof totpTransitions>;
