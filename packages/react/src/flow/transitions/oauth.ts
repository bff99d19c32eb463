import { isOauthCancelled, SignerStatus } from "@latchkey/core";
import type { OauthConfig, SocialSection } from "../types";
import type { AuthFlow } from "./controller";
import { type AuthUiStore, INITIAL_STEP } from "./store";

const PROVIDER_NAMES: Record<string, string> = {
  google: "Google",
  facebook: "Facebook",
  apple: "Apple",
  twitch: "Twitch",
  auth0: "Auth0",
};

/** The provider's name in the modal's texts: `displayName`, else the known provider's name. */
export function providerName(config: OauthConfig): string {
  return config.displayName ?? PROVIDER_NAMES[config.authProviderId] ?? config.authProviderId;
}

const pendingAttempts = new WeakMap<AuthUiStore, AbortController>();
const lastSections = new WeakMap<AuthUiStore, SocialSection>();

/**
 * Social sign-in (spec §4). Call it in the click handler: a pop-up may only open there, so the pop-up
 * is prepared before anything else. oauth_completing while it runs; success completes; an account
 * linking answer goes to otp_verify with the provider's email (the code links the provider); a user
 * cancel returns to initial; other errors stay on oauth_completing with the error. Leaving the step
 * (Back, Close) cancels a pop-up sign-in.
 */
export function startOauth(flow: AuthFlow, section: SocialSection): Promise<void> {
  const { store, signer } = flow;
  const { type: _type, mode = "popup", ...config } = section;
  if (mode === "popup") {
    try {
      signer.preparePopupOauth();
    } catch {
      // No window to open (or blocked): authenticate() reports it.
    }
  }
  pendingAttempts.get(store)?.abort();
  const controller = new AbortController();
  pendingAttempts.set(store, controller);
  lastSections.set(store, section);
  flow.go({ type: "oauth_completing", config });
  // Still inside the click: authenticate() claims the pop-up before its first await.
  const attempt = signer.authenticate({ type: "oauth", mode, ...config, signal: controller.signal });
  const off = store.subscribe(() => {
    if (store.getState().step.type !== "oauth_completing") controller.abort();
  });
  return attempt
    .then((result) => {
      if (result.status === SignerStatus.AWAITING_OTP_AUTH) {
        const linking = signer.getState().authLinkingStatus;
        flow.go({ type: "otp_verify", status: "base", ...(linking ? { email: linking.email } : {}) });
      } else if (flow.step.type === "oauth_completing") flow.complete();
    })
    .catch((error: unknown) => {
      if (controller.signal.aborted || flow.step.type !== "oauth_completing") return;
      if (isOauthCancelled(error)) flow.go(INITIAL_STEP);
      else
        flow.go({
          type: "oauth_completing",
          config,
          error: error instanceof Error ? error : new Error(String(error)),
        });
    })
    .finally(() => {
      off();
      if (pendingAttempts.get(store) === controller) pendingAttempts.delete(store);
    });
}

/** Try again from the OAuth error view (in its click handler). */
export function retryOauth(flow: AuthFlow, config: OauthConfig): Promise<void> {
  return startOauth(flow, lastSections.get(flow.store) ?? { type: "social", ...config });
}
