import type { MfaRequiredError, OauthError, PasskeyError, SignerApiError, SignerError } from "../errors";
import type { AuthenticateParams, AuthenticateResult, AuthMethod, SignerBase } from "../signer/types";

/** What `authenticate` takes. */
export type AuthenticateParameters = AuthenticateParams;
/** What `authenticate` resolves with. */
export type AuthenticateReturnType = AuthenticateResult;
/** The errors `authenticate` may throw (discriminate on `name` and `code`). */
export type AuthenticateErrorType =
  | SignerApiError
  | SignerError
  | MfaRequiredError
  | PasskeyError
  | OauthError;

/**
 * Signs in with one of the signer's auth methods, chosen by `type` (spec §4). The promise settles when
 * the step it started settles: `{type: "email"}` once the code or link is sent (AWAITING_OTP_AUTH or
 * AWAITING_EMAIL_AUTH), `{type: "otp"}` when connected or when MFA is required, `{type: "passkey"}` and a
 * pop-up `{type: "oauth"}` when connected. A pop-up sign-in must be started in the click handler.
 *
 * @example
 * await authenticate(signer, { type: "email", email: "ada@example.com", emailMode: "otp" });
 * const { user } = await authenticate(signer, { type: "otp", otpCode: "123456" });
 */
export function authenticate(
  signer: SignerBase,
  params: AuthenticateParameters,
): Promise<AuthenticateReturnType> {
  // Not async: the method must run inside the caller's click until its own first await (pop-ups).
  const method = Object.values(signer._internal.authMethods).find((m: AuthMethod) =>
    m.types.includes(params.type),
  ) as AuthMethod | undefined;
  if (!method) return Promise.reject(new TypeError(`Unknown authentication type: ${params.type}`));
  return method.authenticate(signer, params);
}
