import type { AuthMethods } from "../client/types";
import type { User } from "../session/types";
import type { WalletConnectorInfo } from "../types/externalWallets";
import type { SignerStatus } from "./status";

/**
 * The error of the last failed step, as plain data. `code` is the error's stable `code` when it is a
 * LatchkeyError (e.g. "INVALID_OTP", "INVALID_MFA_CODE", "PASSKEY_CANCELLED"): classify by it, never
 * by `message`. An error passed back in the URL (`?error=`) has no code.
 */
export interface SignerStateError {
  name: string;
  code?: string;
  message: string;
}

/**
 * Signer events (spec §4) plus state notifications. `statusChanged`, `errorChanged`, `userChanged`,
 * `connected` and `disconnected` are derived from the signer's store (`signer.store`).
 */
export interface SignerEvents {
  authenticating: { type: "otp" | "passkey" | "oauth" | "otpVerify" };
  connected: User;
  connectedPasskey: User;
  connectedOauth: User;
  disconnected: undefined;
  newUserSignup: undefined;
  emailAuthLinkingRequired: { email: string; providerName?: string; idToken: string };
  /** A provider added by `addOauthProvider({mode: "redirect"})` was linked when the page came back. */
  oauthProviderAdded: { providerName: string; oauthProviders: AuthMethods["oauthProviders"] };
  statusChanged: SignerStatus;
  errorChanged: SignerStateError | null;
  /** An external wallet connected (and signed the SIWE message when on): spec §7 `eoa_connected`. */
  externalWalletConnected: { address: `0x${string}`; chainId: number; connector: WalletConnectorInfo };
  /** The user changed: signed in, signed out, or the same session with new user data. */
  userChanged: User | null;
}
/** The names `signer.on` listens to (spec §7): connected, disconnected, status and error changes, and more. */
export type SignerEventName = keyof SignerEvents;

/** A minimal typed emitter; a throwing listener does not stop the others. */
export class Emitter<Events extends object> {
  #listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as (payload: never) => void);
    return () => {
      set.delete(listener as (payload: never) => void);
    };
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
