/**
 * The `error` codes a provider's refusal may carry that the service passes on to the app, as they are
 * (RFC 6749 §4.1.2.1 and OpenID Connect Core §3.1.2.6); any other code becomes `provider_error`. The
 * provider's free text (`error_description`, `error_uri`) is never passed on. A cancel (`access_denied`)
 * is answered as "OAuth cancelled".
 */
export const OAUTH_PROVIDER_ERROR_CODES = [
  "invalid_request",
  "unauthorized_client",
  "access_denied",
  "unsupported_response_type",
  "invalid_scope",
  "server_error",
  "temporarily_unavailable",
  "interaction_required",
  "login_required",
  "account_selection_required",
  "consent_required",
  "invalid_request_uri",
  "invalid_request_object",
  "request_not_supported",
  "request_uri_not_supported",
  "registration_not_supported",
  "provider_error",
] as const;
export type OauthProviderErrorCode = (typeof OAUTH_PROVIDER_ERROR_CODES)[number];

/** Whether an answer's `error` is a provider's refusal code (passed on by the service) rather than its own text. */
export function isOauthProviderErrorCode(error: string): error is OauthProviderErrorCode {
  return (OAUTH_PROVIDER_ERROR_CODES as readonly string[]).includes(error);
}

/** A provider's `error` as the service passes it on: one of the known codes, else `provider_error`. */
export function oauthProviderErrorCode(error: string): OauthProviderErrorCode {
  return isOauthProviderErrorCode(error) ? error : "provider_error";
}
