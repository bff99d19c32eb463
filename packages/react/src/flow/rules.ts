import type { AuthStepType } from "./step";

/** Steps whose header shows a back button (spec §2 "Chrome"). */
const BACK_STEPS = new Set<AuthStepType>([
  "email_verify",
  "otp_verify",
  "totp_verify",
  "passkey_verify",
  "passkey_create",
  "oauth_completing",
  "pick_eoa",
  "eoa_connect",
  "wallet_connect",
]);

export function showsBack(step: AuthStepType): boolean {
  return BACK_STEPS.has(step);
}

/** Back: wallet steps return to the wallet list, the list and every other step to initial. */
export function backTarget(step: AuthStepType): "pick_eoa" | "initial" {
  return step === "wallet_connect" || step === "eoa_connect" ? "pick_eoa" : "initial";
}

/**
 * Close: passkey_create and the split-custody steps end in complete (the user is signed in already);
 * anything else resets.
 */
export function closeTarget(step: AuthStepType): "complete" | "initial" {
  return step === "passkey_create" || step === "wallet_protect" || step === "wallet_restore"
    ? "complete"
    : "initial";
}

export type FooterKind = "terms" | "resend" | "support" | "none";

/** What the footer shows above the 'protected by' badge on each step. */
export function footerKind(step: AuthStepType, supportUrl: string): FooterKind {
  if (step === "initial") return "terms";
  if (step === "email_verify" || step === "otp_verify") return "resend";
  if (
    supportUrl &&
    (step === "passkey_verify" ||
      step === "passkey_create" ||
      step === "passkey_create_success" ||
      step === "oauth_completing")
  )
    return "support";
  return "none";
}
