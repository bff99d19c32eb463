import { isOauthCancelled, SignerStatus } from "@latchkey/core";
import type { OauthConfig, SocialSection } from "../../types";
import type { FlowInternals } from "../internals";
import { INITIAL_STEP } from "../store";

/**
 * Social sign-in (spec §4 "Social sign-in"): oauth_completing while it runs; success completes; an
 * account-linking answer goes to otp_verify with the provider's email (the code links the provider); a
 * user cancel returns to initial; other errors stay on oauth_completing with the error (the
 * connection-error view). Leaving the step (Back, Close) cancels a pop-up sign-in.
 */
export function oauthTransitions(flow: FlowInternals) {
  const start = (section: SocialSection): Promise<void> => {
    const { signer } = flow;
    const { type: _type, mode = "popup", ...config } = section;
    if (mode === "popup") {
      try {
        signer.preparePopupOauth();
      } catch {
        // No window to open (or blocked): authenticate() reports it.
      }
    }
    flow.last.oauth = section;
    flow.go({ type: "oauth_completing", config });
    const attempt = flow.beginAttempt("oauth", "oauth_completing");
    // Still inside the click: authenticate() claims the pop-up before its first await.
    return signer
      .authenticate({ type: "oauth", mode, ...config, signal: attempt.signal })
      .then((result) => {
        if (result.status === SignerStatus.AWAITING_OTP_AUTH) {
          const linking = signer.getState().authLinkingStatus;
          flow.go({ type: "otp_verify", status: "base", email: linking?.email ?? "" });
        } else if (flow.step.type === "oauth_completing") flow.complete();
      })
      .catch((error: unknown) => {
        if (attempt.signal.aborted || flow.step.type !== "oauth_completing") return;
        if (isOauthCancelled(error)) flow.go(INITIAL_STEP);
        else
          flow.showConnectionError({
            type: "oauth_completing",
            config,
            error: error instanceof Error ? error : new Error(String(error)),
          });
      })
      .finally(() => attempt.end());
  };
  return {
    /** Call it in the click handler: a pop-up may only open there, so it is prepared first. */
    start,
    /** Try again from the OAuth error view (in its click handler): the last section asked for. */
    retry: (config: OauthConfig): Promise<void> => start(flow.last.oauth ?? { type: "social", ...config }),
  };
}

export type OauthTransitions = ReturnType<typeof oauthTransitions>;
