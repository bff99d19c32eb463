import { totpErrorText } from "../errors";
import type { FlowInternals } from "../internals";

/** The authenticator-app code (spec §4 "TOTP"), for the sign-in that asked for it. */
export function totpTransitions(flow: FlowInternals) {
  return {
    /** Submits the six digits; returns the text to show when it failed (the boxes clear). */
    async submit(code: string): Promise<string | null> {
      const step = flow.step;
      if (step.type !== "totp_verify") return null;
      flow.go({ ...step, status: "verifying", error: undefined });
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
        const text = totpErrorText(error, flow.getTexts());
        if (flow.step.type === "totp_verify") flow.go({ ...step, status: "base", error: new Error(text) });
        return text;
      }
    },
  };
}

export type TotpTransitions = ReturnType<typeof totpTransitions>;
