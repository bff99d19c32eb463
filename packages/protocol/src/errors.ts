/**
 * Stable error codes of the signer API. Every non-2xx answer of the service carries one of these as
 * `code`, beside a human message as `error` (signer API) or `message` (key-management API).
 */
export const ErrorCode = {
  INVALID_REQUEST: "INVALID_REQUEST",
  INVALID_JSON: "INVALID_JSON",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  BODY_TOO_LARGE: "BODY_TOO_LARGE",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  UNAUTHENTICATED: "UNAUTHENTICATED",
  INVALID_API_KEY: "INVALID_API_KEY",
  ORIGIN_NOT_ALLOWED: "ORIGIN_NOT_ALLOWED",
  INVALID_STAMP: "INVALID_STAMP",
  STAMP_EXPIRED: "STAMP_EXPIRED",
  STAMP_IN_FUTURE: "STAMP_IN_FUTURE",
  SESSION_EXPIRED: "SESSION_EXPIRED",
  FORBIDDEN: "FORBIDDEN",
  USER_EXISTS: "USER_EXISTS",
  USER_NOT_FOUND: "USER_NOT_FOUND",
  INVALID_OTP: "INVALID_OTP",
  OTP_EXPIRED: "OTP_EXPIRED",
  OTP_ATTEMPTS_EXCEEDED: "OTP_ATTEMPTS_EXCEEDED",
  OTP_ALREADY_USED: "OTP_ALREADY_USED",
  MFA_REQUIRED: "MFA_REQUIRED",
  INVALID_MFA_CODE: "INVALID_MFA_CODE",
  MFA_LOCKED: "MFA_LOCKED",
  MFA_FACTOR_NOT_FOUND: "MFA_FACTOR_NOT_FOUND",
  INVALID_MFA_PAYLOAD: "INVALID_MFA_PAYLOAD",
  PASSKEY_VERIFICATION_FAILED: "PASSKEY_VERIFICATION_FAILED",
  PASSKEY_EXISTS: "PASSKEY_EXISTS",
  AUTHENTICATOR_NOT_FOUND: "AUTHENTICATOR_NOT_FOUND",
  STAMP_REPLAYED: "STAMP_REPLAYED",
  LAST_AUTH_METHOD: "LAST_AUTH_METHOD",
  OAUTH_PROVIDER_NOT_FOUND: "OAUTH_PROVIDER_NOT_FOUND",
  OAUTH_INVALID_STATE: "OAUTH_INVALID_STATE",
  OAUTH_INVALID_TOKEN: "OAUTH_INVALID_TOKEN",
  OAUTH_EXCHANGE_FAILED: "OAUTH_EXCHANGE_FAILED",
  OAUTH_PROVIDER_LINKED: "OAUTH_PROVIDER_LINKED",
  INVALID_REDIRECT_URL: "INVALID_REDIRECT_URL",
  INVALID_PUBLIC_KEY: "INVALID_PUBLIC_KEY",
  WALLET_NOT_FOUND: "WALLET_NOT_FOUND",
  ACCOUNT_NOT_FOUND: "ACCOUNT_NOT_FOUND",
  ACTIVITY_NOT_FOUND: "ACTIVITY_NOT_FOUND",
  API_KEY_NOT_FOUND: "API_KEY_NOT_FOUND",
  UNSUPPORTED_ACTIVITY: "UNSUPPORTED_ACTIVITY",
  RATE_LIMITED: "RATE_LIMITED",
  MAIL_FAILED: "MAIL_FAILED",
  INTERNAL: "INTERNAL",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Body of every non-2xx answer of the signer API (`/signer/v1/*`). */
export interface SignerErrorBody {
  error: string;
  code: ErrorCode;
  data?: Record<string, unknown>;
}

/** Body of every non-2xx answer of the key-management API (`/public/v1/*`). */
export interface PublicErrorBody {
  code: ErrorCode;
  message: string;
  details: unknown[];
}

/** The service's message when an email OTP is wrong; the modal maps it to its OTP-invalid text (spec §8). */
export const INVALID_OTP_MESSAGE = "invalid OTP code";
/** The service's message for a wrong authenticator-app code; the modal shows 'The code you entered is incorrect'. */
export const INVALID_MFA_MESSAGE = "Invalid MFA code";
/** The service's message when an email sign-in needs the second factor first. */
export const MFA_REQUIRED_MESSAGE = "MFA is required for this user";
