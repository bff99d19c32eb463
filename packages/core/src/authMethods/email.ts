import type { OtpResponse } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import { MfaRequiredError, SignerApiError, SignerError } from "../errors";
import { completeSession } from "../signer/completeSession";
import { fail, toStateError } from "../signer/state";
import { SignerStatus } from "../signer/status";
import type {
  AuthenticateResult,
  AuthMethod,
  EmailAuthenticateParams,
  OtpAuthenticateParams,
  ReturnHandler,
  SignerBase,
} from "../signer/types";
import { SIGNUP_URL_PARAM } from "../signer/urlParams";

/**
 * Sends the code or the magic link: settles once it is sent (status AWAITING_OTP_AUTH or
 * AWAITING_EMAIL_AUTH). A known email signs in, an unknown one signs up; an account with a second
 * factor answers MFA_REQUIRED (status AWAITING_MFA_AUTH, MfaRequiredError).
 */
async function sendEmail(signer: SignerBase, params: EmailAuthenticateParams): Promise<AuthenticateResult> {
  const { store, client, keyHolder, sessionManager, _internal } = signer;
  const linking = store.getState().authLinkingStatus;
  // A pending provider link belongs to its own email: another address drops it.
  if (linking && linking.email.toLowerCase() !== params.email.trim().toLowerCase()) {
    store.setState({ error: null, authLinkingStatus: undefined });
  } else store.setState({ error: null });
  try {
    const emailMode =
      params.emailMode ??
      ((await client.call(signerRoutes.signerConfig, {})).email.mode === "MAGIC_LINK" ? "magicLink" : "otp");
    if (emailMode === "otp") _internal.emitter.emit("authenticating", { type: "otp" });
    const targetPublicKey = await keyHolder.initTargetKey();
    const redirectUrl = _internal.options.redirectUrl;
    const request = {
      email: params.email,
      emailMode,
      targetPublicKey,
      expirationSeconds: _internal.expirationSeconds,
      ...(params.redirectParams ? { redirectParams: params.redirectParams } : {}),
      ...(redirectUrl ? { redirectUrl } : {}),
    };
    const issuedAtMs = sessionManager.clock.now();
    const { orgId: existingOrgId } = await client.call(signerRoutes.lookup, { email: params.email });
    let orgId: string;
    let otpId: string | undefined;
    let isNewUser = false;
    let bringsWallet = false;
    if (existingOrgId) {
      try {
        ({ orgId, otpId } = await client.call(signerRoutes.auth, {
          ...request,
          ...(params.multiFactors ? { multiFactors: params.multiFactors } : {}),
        }));
      } catch (error) {
        if (error instanceof SignerApiError && error.multiFactors?.length) {
          const mfaFactorId = error.multiFactors[0]?.multiFactorId;
          sessionManager.setTemporarySession({ orgId: existingOrgId, mfaFactorId });
          store.setState({
            mfaStatus: { mfaRequired: true, mfaFactorId },
            status: SignerStatus.AWAITING_MFA_AUTH,
          });
          throw new MfaRequiredError(error.multiFactors, { cause: error });
        }
        throw error;
      }
    } else {
      // A magic link that makes an account comes back with the signup marker: the page then knows
      // the user is new, whichever tab opens it.
      const made = await client.call(
        signerRoutes.signup,
        emailMode === "magicLink"
          ? { ...request, redirectParams: withSignupMarker(request.redirectParams) }
          : request,
      );
      ({ orgId, otpId } = made);
      isNewUser = true;
      // A split app makes no wallet at sign-up: the key holder brings it with the code (§3).
      bringsWallet = emailMode === "otp" && !made.address;
    }
    const stillLinking = store.getState().authLinkingStatus;
    sessionManager.setTemporarySession({
      orgId,
      isNewUser,
      ...(bringsWallet ? { bringsWallet } : {}),
      targetPublicKey,
      ...(otpId ? { otpId } : {}),
      ...(emailMode === "magicLink" ? { issuedAtMs } : {}),
      ...(stillLinking ? { authLinking: stillLinking } : {}),
    });
    const status = emailMode === "otp" ? SignerStatus.AWAITING_OTP_AUTH : SignerStatus.AWAITING_EMAIL_AUTH;
    store.setState({ otpId, isNewUser, status });
    if (isNewUser) _internal.emitter.emit("newUserSignup", undefined);
    return { status, user: null };
  } catch (error) {
    // MFA required is a step, not a failure: the status stays AWAITING_MFA_AUTH.
    if (error instanceof MfaRequiredError) {
      store.setState({ error: toStateError(error) });
      throw error;
    }
    return fail(signer, error);
  }
}

/** Checks the emailed code: settles when connected, or when a second factor is required (AWAITING_MFA_AUTH). */
async function submitOtpCode(signer: SignerBase, params: OtpAuthenticateParams): Promise<AuthenticateResult> {
  const { store, client, keyHolder, sessionManager, _internal } = signer;
  const temporary = sessionManager.getTemporarySession();
  if (!temporary) throw new SignerError("EMAIL_AUTH_SESSION_NOT_FOUND");
  if (!temporary.orgId) throw new SignerError("ORG_ID_NOT_IN_SESSION");
  if (!temporary.otpId) throw new SignerError("OTP_ID_NOT_IN_SESSION");
  store.setState({ error: null });
  _internal.emitter.emit("authenticating", { type: "otpVerify" });
  try {
    // The key the code was sent for: asking the key holder again costs a frame round trip, and the
    // frame answers only once the page has painted the step's change (tens of ms in a busy page).
    const targetPublicKey = temporary.targetPublicKey ?? (await keyHolder.initTargetKey());
    const request = {
      orgId: temporary.orgId,
      otpId: temporary.otpId,
      otpCode: params.otpCode,
      targetPublicKey,
      expirationSeconds: _internal.expirationSeconds,
      ...(params.multiFactors ? { multiFactors: params.multiFactors } : {}),
    };
    // A split app's new user: the wallet rides on this sign-in (docs/split-custody.md §3), one request
    // instead of create_split_wallet after it. Loaded for those users only.
    const custody = temporary.bringsWallet ? await import("../signer/custody") : undefined;
    const splitWallet = await custody?.signInWallet(signer, {
      organizationId: temporary.orgId,
      otpId: temporary.otpId,
      targetPublicKey,
    });
    let response: OtpResponse;
    try {
      response = await client.call(signerRoutes.otp, { ...request, ...(splitWallet ? { splitWallet } : {}) });
    } catch (error) {
      // A wallet the service refused (the code is not spent then): sign in without it, and the wallet
      // is made after the sign-in as for every other way of signing in.
      if (!splitWallet || !custody?.isSignInWalletRefusal(error)) throw error;
      response = await client.call(signerRoutes.otp, request);
    }
    if (custody) await custody.keepSignInWallet(signer, temporary.orgId, response);
    if (response.status === "MFA_REQUIRED") {
      const mfaFactorId = response.multiFactors[0]?.multiFactorId;
      sessionManager.setTemporarySession({
        ...temporary,
        encryptedPayload: response.encryptedPayload,
        mfaFactorId,
      });
      store.setState({
        mfaStatus: { mfaRequired: true, mfaFactorId },
        status: SignerStatus.AWAITING_MFA_AUTH,
      });
      return { status: SignerStatus.AWAITING_MFA_AUTH, user: null };
    }
    const user = await completeSession(signer, {
      bundle: response.credentialBundle,
      orgId: temporary.orgId,
      authenticatingType: "otp",
      ...(response.user ? { who: response.user } : {}),
    });
    return { status: SignerStatus.CONNECTED, user };
  } catch (error) {
    return fail(signer, error);
  }
}

/** A magic link came back: `?bundle&orgId` without a provider's ID token. */
const magicLinkReturn: ReturnHandler = {
  name: "magicLink",
  phase: "beforeSession",
  async handle(signer, params) {
    if (!params.bundle || !params.orgId || params.idToken || params.authProvider) return;
    try {
      await completeSession(signer, {
        bundle: params.bundle,
        orgId: params.orgId,
        authenticatingType: "email",
        ...(params.isSignup || params.signupMarker ? { isNewUser: true } : {}),
      });
    } catch {
      // The error is in the state; the app shows it on its initial step.
    }
  },
};

/**
 * Email sign-in (spec §4): `{type: "email"}` sends a code or a magic link, `{type: "otp"}` checks the
 * code; a magic link completes when the page comes back (`init()`).
 *
 * @example
 * await signer.authenticate({ type: "email", email: "ada@example.com", emailMode: "otp" });
 * await signer.authenticate({ type: "otp", otpCode: "123456" });
 */
export function email(): AuthMethod<EmailAuthenticateParams | OtpAuthenticateParams> {
  return {
    types: ["email", "otp"],
    async authenticate(signer, params) {
      await signer._internal.lifecycle.init();
      return params.type === "email" ? sendEmail(signer, params) : submitOtpCode(signer, params);
    },
    returnHandlers: [magicLinkReturn],
  };
}

/** The app's redirect parameters with the signup marker added. */
function withSignupMarker(redirectParams: string | undefined): string {
  const params = new URLSearchParams(redirectParams);
  params.set(SIGNUP_URL_PARAM, "true");
  return params.toString();
}
