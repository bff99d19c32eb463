import { SignerError } from "../../errors";
import { toStateError } from "../../signer/state";
import { SignerStatus } from "../../signer/status";
import type { ReturnHandler, SignerBase } from "../../signer/types";

export interface AuthLinkingPrompt {
  orgId: string;
  otpId: string;
  email: string;
  providerName: string;
  idToken: string;
}

/**
 * The provider's email belongs to an existing account: an email code was mailed to it. The temporary
 * session gets the code's ids, so `authenticate({type: "otp", otpCode})` signs in and then links the
 * provider with the ID token (`completeSession`).
 */
export function promptAuthLinking(signer: SignerBase, prompt: AuthLinkingPrompt): void {
  const authLinkingStatus = {
    email: prompt.email,
    providerName: prompt.providerName,
    idToken: prompt.idToken,
  };
  signer.sessionManager.setTemporarySession({
    orgId: prompt.orgId,
    otpId: prompt.otpId,
    authLinking: authLinkingStatus,
  });
  signer.store.setState({ otpId: prompt.otpId, authLinkingStatus, status: SignerStatus.AWAITING_OTP_AUTH });
  signer._internal.emitter.emit("emailAuthLinkingRequired", authLinkingStatus);
}

/**
 * A redirect sign-in came back with ACCOUNT_LINKING_CONFIRMATION_REQUIRED. Runs after the stored session
 * is read, so the prompt's status is the last word.
 */
export const linkingPromptReturn: ReturnHandler = {
  name: "oauthLinkingPrompt",
  phase: "afterSession",
  handle(signer, params) {
    if ((params.bundle && params.orgId) || params.status !== "ACCOUNT_LINKING_CONFIRMATION_REQUIRED") return;
    const { orgId, otpId, email, idToken, authProvider } = params;
    if (!otpId || !email || !idToken || !orgId || !authProvider) {
      signer.store.setState({ error: toStateError(new SignerError("AUTH_LINKING_PARAMS_MISSING")) });
      return;
    }
    promptAuthLinking(signer, { orgId, otpId, email, providerName: authProvider, idToken });
  },
};
