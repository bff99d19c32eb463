import type { SigningRequest, StepUpMethod, WalletConnectorInfo } from "@latchkey/core";
import type { GrantPermissionsInput } from "@latchkey/protocol";
import type { OauthConfig } from "../types";

/** Where a step is: waiting for the user, verifying, or done. */
export type AuthStepStatus = "base" | "verifying" | "success";

/**
 * Why an email step shows an error view instead of its form (spec §8): the service could not be
 * reached ('Connection failed'), the code or link outlived its time ('Connection timed out'), or the
 * service refused the request for now ('Permission denied').
 */
export type AuthFailure = "connection" | "timeout" | "permission";

/**
 * The modal's current step (spec §3 "Auth step"): one variant per step of spec §2, each with only the
 * fields that step has. `steps/registry.ts` gives each `type` its view.
 */
export type AuthStep =
  | { type: "initial"; error?: Error; failure?: "permission" }
  /** The magic link is on its way to `email`. */
  | { type: "email_verify"; email: string; status?: AuthStepStatus; failure?: "timeout" }
  | { type: "otp_verify"; email: string; status?: AuthStepStatus; error?: Error; failure?: AuthFailure }
  | {
      type: "totp_verify";
      /** Which email flow asked for the second factor. */
      previousStep: "magicLink" | "otp";
      email: string;
      factorId?: string;
      status?: AuthStepStatus;
      error?: Error;
      failure?: AuthFailure;
    }
  | { type: "passkey_verify"; error?: Error }
  | { type: "passkey_create"; status?: AuthStepStatus; error?: Error }
  | { type: "passkey_create_success"; status?: AuthStepStatus }
  | { type: "email_completing" }
  /** The provider being signed in with. */
  | { type: "oauth_completing"; config: OauthConfig; error?: Error }
  /** The wallet list. */
  | { type: "pick_eoa" }
  /** An injected wallet is asked to connect (and to sign the SIWE message). */
  | { type: "eoa_connect"; connector: WalletConnectorInfo; error?: Error }
  /** WalletConnect: the pairing `uri` as a QR code once the relay gave it. */
  | { type: "wallet_connect"; connector: WalletConnectorInfo; uri?: string; error?: Error }
  /**
   * The consent step: what the app's backend asks to sign for the signed-in user (`useGrantConsent`);
   * `stepUpMethods` once the service asked for a fresh sign-in (STEP_UP_REQUIRED) before making the grant.
   */
  | {
      type: "grant_consent";
      permissions: GrantPermissionsInput;
      status?: AuthStepStatus;
      error?: Error;
      stepUpMethods?: StepUpMethod[];
    }
  /**
   * Split custody (docs/split-custody.md): keep a way to restore this device's part of the wallet — a
   * passkey (its PRF) or a recovery code shown once (`view: "code"`); skipping it says first what losing
   * the device means (`view: "risk"`).
   */
  | {
      type: "wallet_protect";
      view?: "choose" | "code" | "risk";
      /** The recovery code, shown once. */
      code?: string;
      status?: AuthStepStatus;
      error?: Error;
    }
  /** Split custody, on a new device: the passkey or the recovery code puts this device's part back. */
  | { type: "wallet_restore"; status?: AuthStepStatus; error?: Error }
  /**
   * What the signed-in user is asked to sign, decoded (the summary, the warnings, the balance changes when
   * the service can simulate): Confirm signs it, Cancel (or Close) refuses it (`ui.confirmTransactions`, or
   * a call's `confirm: true`).
   */
  | { type: "confirm_signing"; request: SigningRequest }
  | { type: "complete" };

/** Steps of the modal (spec §2). */
export type AuthStepType = AuthStep["type"];

/** The variant of one step type. */
export type AuthStepOf<T extends AuthStepType> = Extract<AuthStep, { type: T }>;
