import type { ComponentType } from "react";
import type { AuthStepType } from "../types";
import { EmailCompletingStep } from "./EmailCompleting";
import { EmailVerifyStep } from "./EmailVerify";
import { InitialStep } from "./Initial";
import { OauthCompletingStep } from "./OauthCompleting";
import { OtpVerifyStep } from "./OtpVerify";
import { PasskeyCreateStep } from "./PasskeyCreate";
import { PasskeyCreateSuccessStep } from "./PasskeyCreateSuccess";
import { PasskeyVerifyStep } from "./PasskeyVerify";
import { TotpVerifyStep } from "./TotpVerify";
import type { StepProps } from "./types";

/**
 * The view of each step. New steps (passkey, OAuth, wallets) are added here and nowhere else; a step
 * without a view falls back to initial.
 */
export const STEP_VIEWS: Partial<Record<AuthStepType, ComponentType<StepProps>>> = {
  initial: InitialStep,
  email_verify: EmailVerifyStep,
  otp_verify: OtpVerifyStep,
  totp_verify: TotpVerifyStep,
  email_completing: EmailCompletingStep,
  passkey_verify: PasskeyVerifyStep,
  passkey_create: PasskeyCreateStep,
  passkey_create_success: PasskeyCreateSuccessStep,
  oauth_completing: OauthCompletingStep,
};
