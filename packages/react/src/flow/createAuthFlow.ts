import type { Grant, Signer, WalletConnectorInfo } from "@latchkey/core";
import type { ResolvedUiConfig } from "../config";
import { enTexts } from "../texts/en";
import type { Texts } from "../texts/types";
import type { SocialSection } from "../types";
import { type AuthUiStore, createAuthUiStore } from "./store";
import { registerTriggers } from "./triggers";

export type EmailMode = "otp" | "magicLink";

/** A grant request waiting for the consent step's answer (`useGrantConsent`). */
export interface PendingGrant {
  resolve(grant: Grant): void;
  reject(reason: Error): void;
}

/** A signing confirmation waiting for the confirmation step's answer (transitions/confirm.ts). */
export interface PendingConfirmation {
  resolve(confirmed: boolean): void;
}

export interface PasskeyRequest {
  /** Create a new passkey and account with it (sign-up), instead of signing in with one. */
  createNew?: boolean;
  /** With an email that has no account yet, a passkey is created too (spec §4). */
  email?: string;
}

export interface AuthFlowOptions {
  signer: Signer;
  /** The modal's state; a new store by default. */
  store?: AuthUiStore;
  /** The current UI config (read on use: the host may change it between renders). */
  getUi: () => ResolvedUiConfig;
  /** The current texts (the provider's locale and overrides); English by default. */
  getTexts?: () => Texts;
  /** Timers of the success delays (spec §9); injectable so tests need not wait. */
  setTimer?: (fn: () => void, ms: number) => unknown;
}

/** The one flow instance of a provider: everything about the modal that outlives a render. */
export interface AuthFlow {
  readonly signer: Signer;
  /** The modal's state: open or not, and the step. */
  readonly store: AuthUiStore;
  readonly getUi: () => ResolvedUiConfig;
  readonly getTexts: () => Texts;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  /** In-flight attempts, one per kind: a new one aborts the previous (flow/internals.ts). */
  readonly attempts: { passkey?: AbortController; oauth?: AbortController; wallet?: AbortController };
  /** What the last attempt of each kind asked for: Try again repeats it. */
  readonly last: {
    passkey?: PasskeyRequest;
    oauth?: SocialSection;
    wallet?: WalletConnectorInfo;
    /** The code last submitted on otp_verify or totp_verify: Try again after a connection failure resends it. */
    code?: string;
    /** Counts the codes and links mailed: the expiry timer of an older one does nothing. */
    mail?: number;
  };
  /** The email mode of the service's signer config: asked once, asked again after a failure. */
  emailMode: Promise<EmailMode> | undefined;
  /** The grant request the consent step answers, while it waits (transitions/grant.ts). */
  readonly grants: { pending?: PendingGrant };
  /** The signature the confirmation step answers, while it waits (transitions/confirm.ts). */
  readonly confirmations: { pending?: PendingConfirmation };
  /**
   * Starts the triggers (flow/triggers.ts) unless running already; the returned release stops them
   * once every holder has released. AuthModal and AuthCard both hold them.
   */
  holdTriggers(): () => void;
}

/**
 * The modal's step machine over the signer (spec §4): one instance per `LatchkeyProvider`, which puts it
 * in context (as wagmi does its config). It holds the state; the transitions (`transitions/*.ts`, bound
 * by `authTransitions(flow)`) are functions of it, loaded with the modal's views rather than with the
 * provider. Framework-free, so it is testable without a DOM.
 *
 * @example
 * const flow = createAuthFlow({ signer, getUi: () => resolveUiConfig() })
 * await authTransitions(flow).email.submit("ada@example.com") // otp_verify (or email_verify: magic link)
 */
export function createAuthFlow({
  signer,
  store = createAuthUiStore(),
  getUi,
  getTexts = () => enTexts,
  setTimer = (fn, ms) => setTimeout(fn, ms),
}: AuthFlowOptions): AuthFlow {
  let triggers: { holders: number; release: () => void } | undefined;
  return {
    signer,
    store,
    getUi,
    getTexts,
    setTimer,
    attempts: {},
    last: {},
    emailMode: undefined,
    grants: {},
    confirmations: {},
    holdTriggers() {
      if (triggers) triggers.holders++;
      else triggers = { holders: 1, release: registerTriggers({ signer, store, getUi }) };
      let held = true;
      return () => {
        if (!held || !triggers) return;
        held = false;
        if (--triggers.holders > 0) return;
        triggers.release();
        triggers = undefined;
      };
    },
  };
}
