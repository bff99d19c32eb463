import { MfaRequiredError, type Signer, SignerStatus } from "@latchkey/core";
import { OTP_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import type { ResolvedUiConfig } from "../config";
import type { AuthStep, AuthStepType } from "../types";
import { otpErrorText, totpErrorText } from "./errors";
import { type PasskeyRequest, startPasskey } from "./passkey";
import { backTarget, closeTarget } from "./rules";
import { type AuthUiStore, INITIAL_STEP } from "./store";

export type EmailMode = "otp" | "magicLink";

/**
 * The modal's step machine over the signer (spec §4): every transition lives here, the components only
 * call these and render the current step. Framework-free, so it is testable without a DOM.
 */
export class AuthFlow {
  constructor(
    readonly signer: Signer,
    readonly store: AuthUiStore,
    /** The current UI config (read on use: the host may change it between renders). */
    readonly getUi: () => ResolvedUiConfig,
    /** The email mode from the service's signer config. */
    readonly emailMode: () => Promise<EmailMode>,
    readonly setTimer: (fn: () => void, ms: number) => unknown = (fn, ms) => setTimeout(fn, ms),
  ) {}

  get step(): AuthStep {
    return this.store.getState().step;
  }

  go(step: AuthStep): void {
    this.store.setState({ step });
  }

  /** The step the modal opens at: email_completing while a magic link is being completed. */
  initialStep(): AuthStep {
    if (this.signer.status === SignerStatus.AUTHENTICATING_EMAIL) return { type: "email_completing" };
    // An error set while closed (a social sign-in's error in the URL) stays on the initial step.
    return this.step.type === "initial" && this.step.error ? this.step : INITIAL_STEP;
  }

  back(): void {
    this.go({ type: backTarget(this.step.type) });
  }

  /** Close: the rule of spec §2, then the modal closes. */
  close(): void {
    const target: AuthStepType = closeTarget(this.step.type);
    if (target === "complete") this.complete();
    else this.store.setState({ isOpen: false, step: INITIAL_STEP });
  }

  complete(): void {
    this.store.setState({ isOpen: false, step: INITIAL_STEP });
    this.getUi().onAuthSuccess?.();
  }

  /** Sends the code or link. OTP mode shows the boxes at once; magic-link mode waits for the mail. */
  async submitEmail(email: string): Promise<void> {
    const mode = await this.emailMode().catch(() => "otp" as const);
    if (mode === "otp") this.go({ type: "otp_verify", email, status: "base" });
    try {
      await this.#sendEmail(email, mode);
      if (mode === "magicLink") this.go({ type: "email_verify", email, status: "base" });
    } catch (error) {
      this.#emailFailed(error, email, mode);
    }
  }

  /** Resend from the verify steps; stays on the step. */
  async resend(): Promise<void> {
    const { email, type } = this.step;
    if (!email) return;
    const mode: EmailMode = type === "email_verify" ? "magicLink" : "otp";
    try {
      await this.#sendEmail(email, mode);
    } catch (error) {
      this.#emailFailed(error, email, mode);
      throw error;
    }
  }

  #sendEmail(email: string, emailMode: EmailMode) {
    return this.signer.authenticate({ type: "email", email, emailMode });
  }

  #emailFailed(error: unknown, email: string, mode: EmailMode): void {
    if (error instanceof MfaRequiredError) {
      this.go({
        type: "totp_verify",
        email,
        status: "base",
        previousStep: mode,
        ...(error.multiFactors[0] ? { factorId: error.multiFactors[0].multiFactorId } : {}),
      });
      return;
    }
    this.go({ type: "initial", error: toError(error) });
  }

  /** Submits the six digits; returns the text to show when it failed (the boxes clear). */
  async submitOtp(otpCode: string): Promise<string | null> {
    const step = this.step;
    this.go({ ...step, status: "verifying", error: undefined });
    try {
      const result = await this.signer.authenticate({ type: "otp", otpCode });
      if (result.status === SignerStatus.AWAITING_MFA_AUTH) {
        const factorId = this.signer.getState().mfaStatus.mfaFactorId;
        this.go({
          type: "totp_verify",
          status: "base",
          previousStep: "otp",
          ...(step.email ? { email: step.email } : {}),
          ...(factorId ? { factorId } : {}),
        });
        return null;
      }
      this.go({ ...step, status: "success", error: undefined });
      this.setTimer(() => {
        if (this.step.type === "otp_verify") this.complete();
      }, OTP_SUCCESS_DELAY_MS);
      return null;
    } catch (error) {
      const text = otpErrorText(error);
      if (this.step.type === "otp_verify") this.go({ ...step, status: "base", error: new Error(text) });
      return text;
    }
  }

  /** Submits an authenticator-app code for the pending sign-in. */
  async submitTotp(code: string): Promise<string | null> {
    const step = this.step;
    this.go({ ...step, status: "verifying", error: undefined });
    try {
      if (step.previousStep === "magicLink" && step.email) {
        await this.signer.authenticate({
          type: "email",
          email: step.email,
          emailMode: "magicLink",
          multiFactors: [{ multiFactorId: step.factorId ?? "", multiFactorCode: code }],
        });
        this.go({ type: "email_verify", email: step.email, status: "base" });
        return null;
      }
      await this.signer.validateMultiFactors({
        multiFactorCode: code,
        ...(step.factorId ? { multiFactorId: step.factorId } : {}),
      });
      this.go({ ...step, status: "success" });
      this.complete();
      return null;
    } catch (error) {
      const text = totpErrorText(error);
      if (this.step.type === "totp_verify") this.go({ ...step, status: "base", error: new Error(text) });
      return text;
    }
  }

  /** Passkey sign-in, or sign-up with `{createNew: true}` (flow/passkey.ts). */
  passkey(request: PasskeyRequest = {}): Promise<void> {
    return startPasskey(this, request);
  }

  /** The signer connected on its own (a magic link opened in another tab, or completed on load). */
  onConnected(): void {
    const t = this.step.type;
    if (t === "email_verify" || t === "email_completing") this.complete();
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
