import type { OauthPopupMessage } from "@latchkey/protocol";
import { OauthCancelledError, OauthError, SignerError } from "../../errors";
import { oauthAnswerError } from "../../errors/oauth";
import { completeSession } from "../../signer/completeSession";
import { toStateError } from "../../signer/state";
import { SignerStatus } from "../../signer/status";
import type {
  AuthenticateResult,
  OauthAuthenticateParams,
  OauthMethod,
  PopupClaim,
  ReturnHandler,
  SignerBase,
} from "../../signer/types";
import type { OauthParams } from "../../types/oauth";
import { createAttemptRunner } from "./attempt";
import { linkingPromptReturn, promptAuthLinking } from "./linkingPrompt";
import { linkRedirectReturn } from "./linkProvider";
import { openOauthPopup } from "./popup";
import { fetchedIdToken, oauthRoundTrip, oauthWindow } from "./roundTrip";

/** What the pop-up (or the redirect) answered (spec §4, pop-up outcomes). */
async function onOauthMessage(
  signer: SignerBase,
  message: OauthPopupMessage,
  params: OauthParams,
): Promise<AuthenticateResult> {
  const { store, _internal } = signer;
  if (message.status === "SUCCESS") {
    if (!message.bundle || !message.orgId)
      throw new OauthError("OAUTH_FAILED", "The sign-in answer is incomplete");
    const isNewUser = message.isSignup === true;
    if (isNewUser) {
      store.setState({ isNewUser: true });
      _internal.emitter.emit("newUserSignup", undefined);
    }
    const user = await completeSession(signer, {
      bundle: message.bundle,
      orgId: message.orgId,
      authenticatingType: "oauth",
      connectedEventName: "connectedOauth",
      idToken: message.idToken,
      isNewUser,
    });
    return { status: SignerStatus.CONNECTED, user, ...(message.idToken ? { idToken: message.idToken } : {}) };
  }
  if (message.status === "ACCOUNT_LINKING_CONFIRMATION_REQUIRED") {
    if (!message.otpId || !message.email || !message.orgId || !message.idToken)
      throw new SignerError("AUTH_LINKING_PARAMS_MISSING");
    promptAuthLinking(signer, {
      orgId: message.orgId,
      otpId: message.otpId,
      email: message.email,
      providerName: message.authProvider ?? params.authProviderId,
      idToken: message.idToken,
    });
    return { status: SignerStatus.AWAITING_OTP_AUTH, user: null, idToken: message.idToken };
  }
  if (message.status === "FETCHED_ID_TOKEN_ONLY") {
    const { status, user } = store.getState();
    return { status, user, idToken: fetchedIdToken(message) };
  }
  // The service answers a cancel at the provider with the spec's 'OAuth cancelled'.
  if (message.error === "OAuth cancelled") throw new OauthCancelledError();
  throw oauthAnswerError(message.error);
}

/** A redirect sign-in came back: `?bundle&orgId` with the provider's ID token (or its name). */
const redirectSignInReturn: ReturnHandler = {
  name: "oauthRedirect",
  phase: "beforeSession",
  async handle(signer, params) {
    if (!params.bundle || !params.orgId || !(params.idToken || params.authProvider)) return;
    try {
      if (params.isSignup) {
        signer.store.setState({ isNewUser: true });
        signer._internal.emitter.emit("newUserSignup", undefined);
      }
      await completeSession(signer, {
        bundle: params.bundle,
        orgId: params.orgId,
        authenticatingType: "oauth",
        connectedEventName: "connectedOauth",
        idToken: params.idToken,
        isNewUser: params.isSignup === true,
      });
    } catch {
      // The error is in the state; the app shows it on its initial step.
    }
  },
};

/**
 * Social sign-in (spec §3–4), in a pop-up or by redirect. The prepared pop-up and the pending attempt
 * are this closure's: one pop-up at a time, a newer attempt cancels the older, and a replaced attempt
 * leaves the state to the newer one.
 *
 * @example
 * signer.preparePopupOauth(); // in the click handler, unless enablePopupOauth is on
 * await signer.authenticate({ type: "oauth", authProviderId: "google", mode: "popup" });
 */
export function oauth(): OauthMethod {
  let preparedPopup: Window | undefined;
  const runAttempt = createAttemptRunner();

  function preparePopup(signer: SignerBase): void {
    if (preparedPopup && !preparedPopup.closed) return;
    const win = oauthWindow(signer);
    if (!win) throw new OauthError("OAUTH_UNSUPPORTED");
    preparedPopup = openOauthPopup(win);
  }

  function claimPopup(signer: SignerBase): PopupClaim {
    const prepared = preparedPopup;
    preparedPopup = undefined;
    if (prepared && !prepared.closed) return { popup: prepared };
    if (!signer._internal.options.enablePopupOauth)
      return { error: new OauthError("OAUTH_POPUP_NOT_PREPARED") };
    const win = oauthWindow(signer);
    if (!win) return { error: new OauthError("OAUTH_UNSUPPORTED") };
    try {
      return { popup: openOauthPopup(win) };
    } catch (error) {
      return { error };
    }
  }

  async function authenticate(
    signer: SignerBase,
    params: OauthAuthenticateParams,
  ): Promise<AuthenticateResult> {
    // A pop-up opens only inside the user's click: before anything is awaited.
    const claim = params.mode === "popup" ? claimPopup(signer) : undefined;
    try {
      await signer._internal.lifecycle.init();
    } catch (error) {
      claim?.popup?.close();
      throw error;
    }
    const { store, _internal } = signer;
    const { type: _type, signal, ...oauthParams } = params;
    if (oauthParams.fetchIdTokenOnly) {
      // Only an ID token (e.g. to link a provider): the signer's state does not change.
      return runAttempt(claim, signal, async (attemptSignal) => {
        const message = await oauthRoundTrip(signer, oauthParams, claim, attemptSignal);
        const { status, user } = store.getState();
        return { status, user, idToken: fetchedIdToken(message) };
      });
    }
    // Spec §4: an OAuth error sets the error but does not force DISCONNECTED; the status goes back to
    // what it was before this attempt (DISCONNECTED for a visitor).
    const before = store.getState().status;
    const restoreTo =
      before === SignerStatus.AUTHENTICATING_OAUTH ||
      before === SignerStatus.AUTHENTICATING_EMAIL ||
      before === SignerStatus.AUTHENTICATING_PASSKEY ||
      before === SignerStatus.INITIALIZING
        ? store.getState().user
          ? SignerStatus.CONNECTED
          : SignerStatus.DISCONNECTED
        : before;
    store.setState({ error: null, status: SignerStatus.AUTHENTICATING_OAUTH, authLinkingStatus: undefined });
    _internal.emitter.emit("authenticating", { type: "oauth" });
    let isCurrent = () => true;
    try {
      return await runAttempt(claim, signal, async (attemptSignal, current) => {
        isCurrent = current;
        const message = await oauthRoundTrip(signer, oauthParams, claim, attemptSignal);
        return onOauthMessage(signer, message, oauthParams);
      });
    } catch (error) {
      // An attempt replaced by a newer one leaves the state to the newer one.
      if (!isCurrent()) throw error;
      store.setState((state) => ({
        error: toStateError(error),
        ...(state.status === SignerStatus.AUTHENTICATING_OAUTH ? { status: restoreTo } : {}),
      }));
      throw error;
    }
  }

  return {
    types: ["oauth"],
    authenticate,
    preparePopup,
    claimPopup,
    async fetchIdToken(signer, params, claim, signal) {
      const message = await runAttempt(claim, signal, (attemptSignal) =>
        oauthRoundTrip(signer, { ...params, mode: "popup", fetchIdTokenOnly: true }, claim, attemptSignal),
      );
      return {
        idToken: fetchedIdToken(message),
        providerName: message.authProvider ?? params.authProviderId,
      };
    },
    redirectForIdToken: (signer, params) =>
      oauthRoundTrip(
        signer,
        { ...params, mode: "redirect", fetchIdTokenOnly: true },
        undefined,
        new AbortController().signal,
      ) as Promise<never>,
    returnHandlers: [redirectSignInReturn, linkingPromptReturn, linkRedirectReturn],
  };
}
