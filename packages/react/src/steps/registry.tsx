import type { ComponentType } from "react";
import type { AuthStepType } from "../flow/step";
import { ConfirmSigningStep } from "./confirm";
import { WalletProtectStep, WalletRestoreStep } from "./custody";
import { EmailCompletingStep } from "./EmailCompleting";
import { EmailVerifyStep } from "./EmailVerify";
import { EoaConnectStep } from "./EoaConnect";
import { GrantConsentStep } from "./GrantConsent";
import { InitialStep } from "./Initial";
import { OauthCompletingStep } from "./OauthCompleting";
import { OtpVerifyStep } from "./OtpVerify";
import { PasskeyCreateStep } from "./PasskeyCreate";
import { PasskeyCreateSuccessStep } from "./PasskeyCreateSuccess";
import { PasskeyVerifyStep } from "./PasskeyVerify";
import { PickEoaStep } from "./PickEoa";
import { TotpVerifyStep } from "./TotpVerify";
import type { StepProps } from "./types";
import { WalletConnectStep } from "./WalletConnect";

/**
 * The view of each step, given only its own step variant; a step without a view does not compile (only
 * `complete`, which closes the modal, has none).
 */
export const STEP_VIEWS: {
  [T in AuthStepType]: T extends "complete" ? undefined : ComponentType<StepProps<T>>;
} = {
  initial: InitialStep,
  email_verify: EmailVerifyStep,
  otp_verify: OtpVerifyStep,
  totp_verify: TotpVerifyStep,
  email_completing: EmailCompletingStep,
  passkey_verify: PasskeyVerifyStep,
  passkey_create: PasskeyCreateStep,
  passkey_create_success: PasskeyCreateSuccessStep,
  oauth_completing: OauthCompletingStep,
  pick_eoa: PickEoaStep,
  eoa_connect: EoaConnectStep,
  wallet_connect: WalletConnectStep,
  grant_consent: GrantConsentStep,
  wallet_protect: WalletProtectStep,
  wallet_restore: WalletRestoreStep,
  confirm_signing: ConfirmSigningStep,
  // `complete` closes the modal: it has no view.
  complete: undefined,
};

/** The current step's view; a step without a view shows initial. */
export function StepView({ transitions, step, ui }: StepProps) {
  // STEP_VIEWS pairs each type with the view of that variant, which TypeScript cannot follow through
  // a lookup by `step.type`.
  const View = STEP_VIEWS[step.type] as ComponentType<StepProps> | undefined;
  if (View) return <View transitions={transitions} step={step} ui={ui} />;
  const Initial = STEP_VIEWS.initial as ComponentType<StepProps>;
  return <Initial transitions={transitions} step={{ type: "initial" }} ui={ui} />;
}
