/**
 * Stable error codes of the signer API. Every non-2xx answer of the service carries one of these as
 * `code`, beside a human message as `error` (signer API) or `message` (key-management API).
 */
export const ErrorCode = {
  INVALID_REQUEST: "INVALID_REQUEST",
  INVALID_JSON: "INVALID_JSON",
  /** A JSON body (or a JSON payload in one) nests arrays and objects deeper than 32 levels. */
  JSON_TOO_DEEP: "JSON_TOO_DEEP",
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
  INVALID_CHARACTERS: "INVALID_CHARACTERS",
  STAMP_NOT_CANONICAL: "STAMP_NOT_CANONICAL",
  STAMP_WRONG_OPERATION: "STAMP_WRONG_OPERATION",
  EMAIL_IN_USE: "EMAIL_IN_USE",
  INVALID_VERIFICATION_TOKEN: "INVALID_VERIFICATION_TOKEN",
  /** Sign-In with Ethereum: the message is not an EIP-4361 message. */
  SIWE_INVALID_MESSAGE: "SIWE_INVALID_MESSAGE",
  /** The message's nonce was never issued, or was issued to another app. */
  SIWE_NONCE_UNKNOWN: "SIWE_NONCE_UNKNOWN",
  /** The message's nonce was presented before (a nonce is spent the first time, whatever the outcome). */
  SIWE_NONCE_USED: "SIWE_NONCE_USED",
  /** The message's nonce is past its life (`SIWE_NONCE_TTL_MS`). */
  SIWE_NONCE_EXPIRED: "SIWE_NONCE_EXPIRED",
  /** The message's address or chain is not the one its nonce was issued for. */
  SIWE_NONCE_MISMATCH: "SIWE_NONCE_MISMATCH",
  /** The message's `domain` is not the host of one of the app's allowed origins. */
  SIWE_DOMAIN_NOT_ALLOWED: "SIWE_DOMAIN_NOT_ALLOWED",
  /** The message's `URI` is not on one of the app's allowed origins. */
  SIWE_URI_NOT_ALLOWED: "SIWE_URI_NOT_ALLOWED",
  /** The chain is not one the service is configured for. */
  SIWE_CHAIN_NOT_SUPPORTED: "SIWE_CHAIN_NOT_SUPPORTED",
  /** The message's `Expiration Time` has passed. */
  SIWE_MESSAGE_EXPIRED: "SIWE_MESSAGE_EXPIRED",
  /** The message's `Not Before` is still ahead, or its `Issued At` is in the future. */
  SIWE_MESSAGE_NOT_YET_VALID: "SIWE_MESSAGE_NOT_YET_VALID",
  /** Not the address's signature: not its key's (EOA), nor accepted by its contract (ERC-1271/6492). */
  SIWE_INVALID_SIGNATURE: "SIWE_INVALID_SIGNATURE",
  /** A SIWE session token that this service did not issue to this app, or that has expired. */
  SIWE_TOKEN_INVALID: "SIWE_TOKEN_INVALID",
  /** The chain's node did not answer while a contract wallet's signature was being checked: try again. */
  CHAIN_UNAVAILABLE: "CHAIN_UNAVAILABLE",
  /** The service sends nothing on this chain (not in its `chains`, or without a bundler): ask for another. */
  CHAIN_NOT_SUPPORTED: "CHAIN_NOT_SUPPORTED",
  /**
   * The operation (wallet export) needs a fresh sign-in: a passkey, an email code or an authenticator-app
   * code within the last 5 minutes (`STEP_UP_MAX_AGE_MS`). `data.stepUpMethods` lists what the user has.
   */
  STEP_UP_REQUIRED: "STEP_UP_REQUIRED",
  /**
   * The app's signing policy refused this signature (the activity is REJECTED): `data.activityId`, and the
   * message names the rule.
   */
  POLICY_DENIED: "POLICY_DENIED",
  /**
   * The app's signing policy holds this signature until an app admin approves it (the activity waits in
   * CONSENSUS_NEEDED): `data.activityId`; poll `get_activity` for the outcome.
   */
  ACTIVITY_CONSENSUS_NEEDED: "ACTIVITY_CONSENSUS_NEEDED",
  /** approve_activity / reject_activity: the activity is not waiting for a decision (any more). */
  ACTIVITY_NOT_PENDING: "ACTIVITY_NOT_PENDING",
  /** complete_activity (split custody): no app admin has approved this held signature yet. */
  ACTIVITY_NOT_APPROVED: "ACTIVITY_NOT_APPROVED",
  /** complete_activity (split custody): the admin's approval has expired; an admin may approve again. */
  APPROVAL_EXPIRED: "APPROVAL_EXPIRED",
  /** An app admin disabled this user: they can neither sign in nor sign until enabled again. */
  USER_DISABLED: "USER_DISABLED",
  /** Admin API: the stamp's key is no app's admin key (a user's session key, or an unknown key). */
  ADMIN_KEY_REQUIRED: "ADMIN_KEY_REQUIRED",
  /** Admin API: the `cursor` is not one a previous page answered. */
  INVALID_CURSOR: "INVALID_CURSOR",
  /** Admin API: the user has no such live session. */
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  /** Admin API: the app has no such webhook delivery (or its endpoint was removed). */
  WEBHOOK_DELIVERY_NOT_FOUND: "WEBHOOK_DELIVERY_NOT_FOUND",
  /** get_policy: the app's signing policy has no rule with this id. */
  POLICY_NOT_FOUND: "POLICY_NOT_FOUND",
  /** Admin console: no enrolment link has this token. */
  ENROLMENT_LINK_UNKNOWN: "ENROLMENT_LINK_UNKNOWN",
  /** Admin console: the enrolment link enrolled a passkey already (each link is single use). */
  ENROLMENT_LINK_USED: "ENROLMENT_LINK_USED",
  /** Admin console: the enrolment link has expired; `latchkey admin create` prints a new one. */
  ENROLMENT_LINK_EXPIRED: "ENROLMENT_LINK_EXPIRED",
  /**
   * import_wallet: the encrypted bundle is malformed, names no import key of this user (from
   * init_import_wallet), or does not open with it.
   */
  INVALID_IMPORT_BUNDLE: "INVALID_IMPORT_BUNDLE",
  /** import_wallet: the import key was used already (each key imports once); ask for a new one. */
  IMPORT_KEY_USED: "IMPORT_KEY_USED",
  /** import_wallet: the import key is past its life (`IMPORT_KEY_TTL_MS`); ask for a new one. */
  IMPORT_KEY_EXPIRED: "IMPORT_KEY_EXPIRED",
  /** import_wallet: the sealed secret is not a 12- or 24-word BIP-39 phrase, or not a key of its kind. */
  INVALID_IMPORT_SECRET: "INVALID_IMPORT_SECRET",
  /** import_wallet: the imported accounts are already in this user's account. */
  WALLET_ALREADY_IMPORTED: "WALLET_ALREADY_IMPORTED",
  /**
   * import_wallet: an imported account is another user's (in this app or another): one key, one user, or
   * whoever holds either account could spend from both.
   */
  WALLET_HELD_BY_ANOTHER_USER: "WALLET_HELD_BY_ANOTHER_USER",
  /** Admin API pregenerate_user: the external id is another user's (with another email). */
  EXTERNAL_ID_IN_USE: "EXTERNAL_ID_IN_USE",
  /** Backend API: the stamp's key is none of an app's server keys (`serverKeys`). */
  SERVER_KEY_REQUIRED: "SERVER_KEY_REQUIRED",
  /** Grants: the app has no grant with this id. */
  GRANT_NOT_FOUND: "GRANT_NOT_FOUND",
  /** Grants: the grant is another user's than the one the request names. */
  GRANT_USER_MISMATCH: "GRANT_USER_MISMATCH",
  /** Grants: the user revoked the grant; nothing is signed under it any more. */
  GRANT_REVOKED: "GRANT_REVOKED",
  /** Grants: the grant's `expiresAt` has passed. */
  GRANT_EXPIRED: "GRANT_EXPIRED",
  /**
   * Grants: what was asked is outside what the grant allows (another chain, contract or function, a
   * message or typed data it does not allow): `data.ruleId` names the part of the grant, `data.activityId`
   * the refused activity.
   */
  GRANT_DENIED: "GRANT_DENIED",
  /**
   * Grants: one of its caps is reached: `data.limit` is "valuePerTransaction", "valuePerDay" or
   * "maxOperations", with `data.max` and `data.used` (and `data.resetsAt` for a daily cap).
   */
  GRANT_LIMIT_EXCEEDED: "GRANT_LIMIT_EXCEEDED",
  /** Grants: too many signatures under one grant at once; try again. */
  GRANT_BUSY: "GRANT_BUSY",
  /** A user operation the bundler or the chain refused (`data.reason`): it was not sent. */
  USER_OPERATION_REJECTED: "USER_OPERATION_REJECTED",
  /** A user operation's sponsorship was refused (`data.reason`, a `SponsorshipErrorCode`). */
  SPONSORSHIP_DENIED: "SPONSORSHIP_DENIED",
  /**
   * Split custody: this wallet is split between the user's device and the service, and the request
   * carries no user share (`X-User-Share`, or `stampedRequest.userShare`): nothing was signed.
   */
  USER_SHARE_REQUIRED: "USER_SHARE_REQUIRED",
  /**
   * Split custody: the request's user share does not open for this exact body (sealed for another
   * request), or does not combine with the service's share to this account's key: nothing was signed.
   */
  USER_SHARE_INVALID: "USER_SHARE_INVALID",
  /** create_split_wallet: the user has a wallet already (one wallet per user). */
  WALLET_EXISTS: "WALLET_EXISTS",
  /** begin/complete_split_wallet: the wallet is split already (docs/split-custody.md §3.1). */
  WALLET_ALREADY_SPLIT: "WALLET_ALREADY_SPLIT",
  /** complete_split_wallet: no split of this wallet was begun (begin_split_wallet first). */
  SPLIT_NOT_BEGUN: "SPLIT_NOT_BEGUN",
  /**
   * Split custody: the operation is not (yet) supported for a split wallet or a split app; the message
   * says which (grants, imports, pregenerated users).
   */
  SPLIT_CUSTODY_UNSUPPORTED: "SPLIT_CUSTODY_UNSUPPORTED",
  /**
   * The app's signing policy requires the user to confirm this signature in the service's auth frame
   * (`signingPolicy.confirmation`), and the request carries no confirmation: nothing was signed.
   */
  CONFIRMATION_REQUIRED: "CONFIRMATION_REQUIRED",
  /**
   * The request's confirmation is not the auth frame's for this exact body (another request's, expired,
   * or not signed by the key the frame registered for this session): nothing was signed.
   */
  CONFIRMATION_INVALID: "CONFIRMATION_INVALID",
  INTERNAL: "INTERNAL",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 502 | 503;

/**
 * The HTTP status of each code: one table, so a code always answers the same status and a new code
 * states its status once, here.
 */
export const errorStatus: Record<ErrorCode, ErrorStatus> = {
  INVALID_REQUEST: 400,
  INVALID_JSON: 400,
  JSON_TOO_DEEP: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BODY_TOO_LARGE: 413,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 400,
  UNAUTHENTICATED: 401,
  INVALID_API_KEY: 401,
  ORIGIN_NOT_ALLOWED: 403,
  INVALID_STAMP: 401,
  STAMP_EXPIRED: 401,
  STAMP_IN_FUTURE: 401,
  SESSION_EXPIRED: 401,
  FORBIDDEN: 403,
  USER_EXISTS: 409,
  USER_NOT_FOUND: 404,
  INVALID_OTP: 400,
  OTP_EXPIRED: 400,
  OTP_ATTEMPTS_EXCEEDED: 400,
  OTP_ALREADY_USED: 400,
  MFA_REQUIRED: 401,
  INVALID_MFA_CODE: 400,
  MFA_LOCKED: 429,
  MFA_FACTOR_NOT_FOUND: 404,
  INVALID_MFA_PAYLOAD: 400,
  PASSKEY_VERIFICATION_FAILED: 400,
  PASSKEY_EXISTS: 409,
  AUTHENTICATOR_NOT_FOUND: 404,
  STAMP_REPLAYED: 401,
  LAST_AUTH_METHOD: 409,
  OAUTH_PROVIDER_NOT_FOUND: 404,
  OAUTH_INVALID_STATE: 400,
  OAUTH_INVALID_TOKEN: 400,
  OAUTH_EXCHANGE_FAILED: 502,
  OAUTH_PROVIDER_LINKED: 409,
  INVALID_REDIRECT_URL: 400,
  INVALID_PUBLIC_KEY: 400,
  WALLET_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  ACTIVITY_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  UNSUPPORTED_ACTIVITY: 400,
  RATE_LIMITED: 429,
  MAIL_FAILED: 502,
  INVALID_CHARACTERS: 400,
  STAMP_NOT_CANONICAL: 401,
  STAMP_WRONG_OPERATION: 400,
  EMAIL_IN_USE: 409,
  INVALID_VERIFICATION_TOKEN: 400,
  SIWE_INVALID_MESSAGE: 400,
  SIWE_NONCE_UNKNOWN: 400,
  SIWE_NONCE_USED: 400,
  SIWE_NONCE_EXPIRED: 400,
  SIWE_NONCE_MISMATCH: 400,
  SIWE_DOMAIN_NOT_ALLOWED: 403,
  SIWE_URI_NOT_ALLOWED: 403,
  SIWE_CHAIN_NOT_SUPPORTED: 400,
  SIWE_MESSAGE_EXPIRED: 400,
  SIWE_MESSAGE_NOT_YET_VALID: 400,
  SIWE_INVALID_SIGNATURE: 401,
  SIWE_TOKEN_INVALID: 401,
  CHAIN_UNAVAILABLE: 503,
  CHAIN_NOT_SUPPORTED: 400,
  STEP_UP_REQUIRED: 403,
  POLICY_DENIED: 403,
  ACTIVITY_CONSENSUS_NEEDED: 409,
  ACTIVITY_NOT_PENDING: 409,
  ACTIVITY_NOT_APPROVED: 409,
  APPROVAL_EXPIRED: 409,
  USER_DISABLED: 403,
  ADMIN_KEY_REQUIRED: 403,
  INVALID_CURSOR: 400,
  SESSION_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  POLICY_NOT_FOUND: 404,
  ENROLMENT_LINK_UNKNOWN: 400,
  ENROLMENT_LINK_USED: 400,
  ENROLMENT_LINK_EXPIRED: 400,
  INVALID_IMPORT_BUNDLE: 400,
  IMPORT_KEY_USED: 400,
  IMPORT_KEY_EXPIRED: 400,
  INVALID_IMPORT_SECRET: 400,
  WALLET_ALREADY_IMPORTED: 409,
  WALLET_HELD_BY_ANOTHER_USER: 409,
  EXTERNAL_ID_IN_USE: 409,
  SERVER_KEY_REQUIRED: 403,
  GRANT_NOT_FOUND: 404,
  GRANT_USER_MISMATCH: 403,
  GRANT_REVOKED: 403,
  GRANT_EXPIRED: 403,
  GRANT_DENIED: 403,
  GRANT_LIMIT_EXCEEDED: 403,
  GRANT_BUSY: 409,
  USER_OPERATION_REJECTED: 400,
  SPONSORSHIP_DENIED: 403,
  USER_SHARE_REQUIRED: 403,
  USER_SHARE_INVALID: 400,
  WALLET_EXISTS: 409,
  WALLET_ALREADY_SPLIT: 409,
  SPLIT_NOT_BEGUN: 409,
  SPLIT_CUSTODY_UNSUPPORTED: 409,
  CONFIRMATION_REQUIRED: 403,
  CONFIRMATION_INVALID: 403,
  INTERNAL: 500,
};

/** Base of the errors protocol code throws (stamp and bundle formats): a stable `code` beside the message. */
export class LatchkeyProtocolError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "LatchkeyProtocolError";
  }
}

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

// The JSON-RPC codes of /rpc/v1 and the sponsorship refusals live beside: rpcErrors.ts.
export * from "./rpcErrors";

/**
 * A fetch to the service that got no answer, said so that a developer can act: the URL and the cause
 * (Node's own error is a bare "fetch failed"). Still a TypeError, as every fetch's network failure is, so
 * whoever tells "never reached the service" apart by it still does. Anything else is returned as it was.
 *
 * @example
 * const res = await fetch(url, init).catch((e) => {
 *   throw unreachableService(url, e);
 * });
 */
export function unreachableService(url: string, error: unknown): unknown {
  if (!(error instanceof TypeError)) return error;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const why = typeof cause?.code === "string" ? cause.code : error.message;
  return new TypeError(`Could not reach the Latchkey service at ${url} (${why}): is it running there?`, {
    cause: error,
  });
}
