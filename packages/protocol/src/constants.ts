/** Business constants of the product spec (§9) and DESIGN §8. */
export const OTP_LENGTH = 6;
export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_MAX_ATTEMPTS = 5;
export const DEFAULT_SESSION_EXPIRATION_SECONDS = 900;
export const DEFAULT_SESSION_LENGTH_MS = 900_000;
export const MAX_SESSION_EXPIRATION_SECONDS = 30 * 24 * 60 * 60;
export const OTP_SUCCESS_DELAY_MS = 1000;
export const PASSKEY_SUCCESS_DELAY_MS = 5000;
export const RESEND_CONFIRMATION_MS = 2000;
export const PASSKEY_TIMEOUT_MS = 300_000;
export const ACTIVITY_POLL_INTERVAL_MS = 500;
export const POPUP_CLOSED_CHECK_MS = 500;
export const POPUP_WIDTH = 500;
export const POPUP_HEIGHT = 600;
export const REDIRECT_FAILURE_MS = 1000;
export const CHALLENGE_BYTES = 32;
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
/**
 * The external-wallet cookie's `max-age`, in **seconds** (34,560,000 s = 400 days, the longest a browser
 * keeps a cookie). The spec writes "34560000 ms"; read as milliseconds that would be 9.6 hours, so the
 * number is kept and read as the cookie attribute's unit.
 */
export const WALLET_COOKIE_MAX_AGE_SECONDS = 34_560_000;
/**
 * @deprecated The value is in seconds, not milliseconds: use `WALLET_COOKIE_MAX_AGE_SECONDS`.
 */
export const WALLET_COOKIE_MAX_AGE_MS = WALLET_COOKIE_MAX_AGE_SECONDS;
/** Submit bodies older than this are refused (DESIGN §3.2). */
export const STAMP_MAX_AGE_MS = 5 * 60 * 1000;
/** Submit bodies further than this in the future are refused. */
export const STAMP_MAX_FUTURE_MS = 60 * 1000;
export const MAX_BODY_BYTES = 64 * 1024;
export const TEMPORARY_SESSION_SUFFIX = ":temporary";
export const SDK_VERSION_HEADER = "X-Latchkey-Version";
export const EVM_DERIVATION_PATH = "m/44'/60'/0'/0/0";
export const SOLANA_DERIVATION_PATH = "m/44'/501'/0'/0'";
/** Sign-In with Ethereum (EIP-4361): how long a nonce from `/v1/siwe/nonce` can be verified, once. */
export const SIWE_NONCE_TTL_MS = 5 * 60 * 1000;
/**
 * Wallet export needs a sign-in this recent (step-up): a passkey, an email code (sign-in or
 * `/v1/verify-otp`) or an authenticator-app code within the last 5 minutes.
 */
export const STEP_UP_MAX_AGE_MS = 5 * 60 * 1000;
/** The longest life of a SIWE session token; a message's earlier `Expiration Time` shortens it. */
export const SIWE_TOKEN_TTL_SECONDS = 24 * 60 * 60;
/** The longest SIWE message `/v1/siwe/verify` reads, in characters. */
export const SIWE_MESSAGE_MAX_LENGTH = 4096;
/** How far in the future a SIWE message's `Issued At` may be (clocks disagree a little). */
export const SIWE_MAX_CLOCK_SKEW_MS = 60 * 1000;
/**
 * The service's JSON-RPC method (at `POST /rpc/v1`) that makes its Solana fee payer pay for a transaction:
 * params `[{policyId, serializedTransaction}]` (base64 wire transaction, the user's signature may be
 * missing), result `{serializedTransaction}`: the same instructions with the service's fee payer set and
 * its signature added; the client adds the user's signature over the returned message and sends it.
 */
export const SOLANA_FEE_PAYER_METHOD = "latchkey_requestFeePayer";
/** Solana commitment the client waits for after sending (spec §9). */
export const SOLANA_COMMITMENT = "confirmed";
