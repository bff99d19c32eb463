import type { ErrorCode } from "@latchkey/protocol";

/** Messages of the spec's error catalogue (§8) that the signer and its key holders raise. */
export const SignerErrorMessages = {
  NOT_AUTHENTICATED: "Signer not authenticated",
  OAUTH_PROVIDERS_NOT_FOUND: "OAuth providers not found",
  MFA_REQUIRED: "MFA is required for this user",
  EMAIL_AUTH_SESSION_NOT_FOUND: "Could not find email auth init session!",
  ORG_ID_NOT_IN_SESSION: "orgId not found in session",
  OTP_ID_NOT_IN_SESSION: "otpId not found in session",
  USER_NOT_FOUND: "No user found",
  // The spec's text, kept word for word: `submitOtpCode` is spec §7's name for what the public API calls
  // `authenticate({ type: "otp" })` (the email code step, which leaves the pending MFA context).
  NO_PENDING_MFA: "No pending MFA context found. Call submitOtpCode() first.",
  MFA_FACTOR_MISMATCH: "MFA factor ID mismatch",
  NOT_CONNECTED: "Signer not connected or initialized",
  MUST_BE_AUTHENTICATED: "Must be authenticated!",
  NO_SOLANA_ADDRESS: "no solana address",
  AUTH_LINKING_PARAMS_MISSING: "Missing required query params for auth linking prompt",
  EMAIL_EMPTY: "Email must not be empty. Use removeEmail() to remove email auth.",
  CREATE_API_KEY_FAILED: "Failed to create api key",
  INJECT_BUNDLE_FAILED: "Failed to inject credential bundle",
  USER_SHARE_REQUIRED:
    "This device lacks its part of the split wallet: restore the wallet here (restoreWallet) first",
  RECOVERY_FAILED: "This passkey or recovery code does not open the wallet",
  RECOVERY_NOT_FOUND: "No recovery of this kind is stored for the wallet",
  PASSKEY_PRF_UNSUPPORTED: "This passkey has no PRF: use a recovery code",
  SPLIT_CUSTODY_UNSUPPORTED_HOLDER: "This key holder cannot hold a split wallet's part",
  NO_SPLIT_WALLET: "The user has no split wallet",
  USER_REJECTED: "User rejected the request.",
  CONFIRMATION_UNAVAILABLE:
    "A confirmation was asked for but nothing can show it: render <AuthModal /> inside <LatchkeyProvider>, or set one with setSigningConfirmation",
} as const;
/** Codes of the signer's own errors (`SignerError`), each with the spec's message. */
export type SignerErrorCode = keyof typeof SignerErrorMessages;

/** Messages of the passkey errors (spec §5, §8). */
export const PasskeyErrorMessages = {
  PASSKEY_CANCELLED:
    "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
  WEBAUTHN_UNSUPPORTED: "Passkey registration needs browser WebAuthn support, which is not available here",
  RP_ID_REQUIRED: "Passkeys need a relying-party id: set the signer's rpId option outside a browser page",
  PASSKEY_ALREADY_REGISTERED: "This passkey is already registered for this account",
  PASSKEY_FAILED: "The passkey request failed",
} as const;
/** Codes of passkey errors (`PasskeyError`). */
export type PasskeyErrorCode = keyof typeof PasskeyErrorMessages;

/** Social sign-in errors with the spec's texts (§8). */
export const OauthErrorMessages = {
  OAUTH_CANCELLED: "OAuth cancelled",
  OAUTH_REDIRECT_FAILED: "Failed to redirect to OAuth provider",
  OAUTH_POPUP_NOT_PREPARED:
    "Pop-up OAuth needs enablePopupOauth, or preparePopupOauth() called in the click handler",
  OAUTH_POPUP_BLOCKED: "The OAuth pop-up was blocked by the browser",
  OAUTH_PROVIDER_NOT_FOUND: "OAuth providers not found",
  OAUTH_UNKNOWN_SCOPE: "No known scope for this OAuth provider; pass one",
  OAUTH_UNSUPPORTED: "Social sign-in needs a browser window",
  OAUTH_PROVIDER_ERROR: "The sign-in provider refused the sign-in",
} as const;
/** Codes of social sign-in errors (`OauthError`). */
export type OauthErrorCode = keyof typeof OauthErrorMessages;

/** Smart accounts and user operations (spec §8 "sending"). */
export const SmartAccountErrorMessages = {
  SMART_ACCOUNT_CLIENT_MISSING:
    "Missing client: no chain is configured for smart accounts (pass chains to createSigner or LatchkeyProvider)",
  CHAIN_NOT_CONFIGURED: "Chain not configured",
  USER_OPERATION_REVERTED: "The user operation reverted",
  INSUFFICIENT_FUNDS: "The smart account has no funds to pay for gas; fund it or use a sponsorship policy",
  SPONSORSHIP_REFUSED: "Gas sponsorship was refused",
  USER_OPERATION_FAILED: "The user operation could not be sent",
  WAIT_FOR_TRANSACTION_FAILED: "Failed to wait for the user operation's transaction",
} as const;
/** Codes of smart-account errors (`SmartAccountError`). */
export type SmartAccountErrorCode = keyof typeof SmartAccountErrorMessages;

/** Sending Solana transactions and the embedded Solana wallet (wallet standard). */
export const SolanaErrorMessages = {
  SOLANA_NOT_CONFIGURED:
    "Solana is not configured: pass solana: solana({ rpcUrl }) of @latchkey/core/solana to createSigner or LatchkeyProvider (and npm i @solana/kit)",
  SOLANA_CONNECTION_MISSING:
    "Missing connection: no Solana RPC (pass connection, or set solana.rpcUrl in the signer options)",
  SOLANA_POLICY_MISSING:
    "Missing policyId: a sponsored Solana transaction needs a policy (pass policyId, or set solana.policyId in the signer options)",
  SOLANA_INVALID_INPUT: "Invalid Solana transaction input",
  INSUFFICIENT_FUNDS:
    "The Solana account holds too little SOL for this transaction (the lamports it moves, and its fee unless sponsored)",
  INSUFFICIENT_FUNDS_FOR_RENT:
    "The transaction would leave an account below the rent-exempt minimum (a new account needs at least 890,880 lamports)",
  BLOCKHASH_EXPIRED: "The transaction's blockhash expired before it was confirmed",
  SPONSORSHIP_REFUSED: "Solana fee sponsorship was refused",
  SPONSORED_TRANSACTION_MISMATCH:
    "The fee payer service answered a transaction that differs from the one sent; it was not signed",
  SOLANA_TRANSACTION_FAILED: "The Solana transaction failed",
  SOLANA_SEND_FAILED: "The Solana transaction could not be sent",
  SOLANA_CHAIN_UNSUPPORTED: "The Latchkey wallet does not serve this Solana chain",
  SOLANA_ACCOUNT_MISMATCH: "The account is not the signed-in user's Solana account",
} as const;
/** Codes of Solana errors (`SolanaError`). */
export type SolanaErrorCode = keyof typeof SolanaErrorMessages;

/** External wallets (EOA): the spec's wallet and WalletConnect texts (§8), and the connector errors. */
export const ExternalWalletErrorMessages = {
  WALLET_CONNECTION_FAILED: "The wallet's connection failed or was canceled.",
  USER_REJECTED: "User rejected the request.",
  WALLET_CONNECTION_TIMEOUT: "It looks like you need more time.",
  WALLETCONNECT_CONFIG_MISSING: "The WalletConnect configuration is missing or incorrect.",
  WALLET_CHAIN_UNSUPPORTED: "The connected wallet does not support this network",
  CHAIN_NOT_CONFIGURED: "Chain not configured",
  CONNECTOR_ALREADY_CONNECTED: "Connector already connected",
  CONNECTOR_NOT_CONNECTED: "Connector not connected",
  PROVIDER_NOT_FOUND: "Provider not found",
  NO_CHAINS_ON_CONNECTOR: "No chains found on connector",
  SWITCH_CHAIN_NOT_SUPPORTED: "The connector does not support programmatic chain switching",
  CONNECTOR_CHAIN_MISMATCH: "The connector's chain differs from the connection's chain",
  EXTERNAL_WALLET_NOT_CONNECTED: "No external wallet is connected",
  EOA_USER_OPERATION_UNSUPPORTED:
    "Batch and hex user operations cannot be sent from an external wallet: send one call {target, data, value}",
  SIWE_FAILED: "Sign-In with Ethereum failed",
  EXTERNAL_WALLETS_NOT_CONFIGURED:
    "External wallets are not configured: pass externalWallets: externalWallets() of @latchkey/core/external-wallets to createSigner or LatchkeyProvider (and npm i @wagmi/core)",
} as const;
/** Codes of external-wallet errors (`ExternalWalletError`). */
export type ExternalWalletErrorCode = keyof typeof ExternalWalletErrorMessages;

/**
 * The auth frame did not load in time, loaded but did not answer (`FRAME_UNAVAILABLE`: refused by its
 * frame-ancestors, a wrong URL, or this page's origin is not allowed), was closed, or failed in a way the
 * catalogue does not name.
 */
export type FrameErrorCode = "FRAME_TIMEOUT" | "FRAME_UNAVAILABLE" | "FRAME_CLOSED" | "FRAME_ERROR";

/** Why the service cannot be used from this page (`checkConnection`); the API's own codes join these. */
export type ConnectionErrorCode = "SERVICE_UNREACHABLE" | "SERVICE_NOT_FOUND";

/** A non-2xx answer of the service: the service's own code, or HTTP_ERROR when the body has none. */
export type ApiErrorCode = ErrorCode | "HTTP_ERROR";

/**
 * Every `code` a @latchkey/core error can carry. Classify errors by it (a UI maps it to its own text);
 * the messages are for people and logs.
 */
export type CoreErrorCode =
  | SignerErrorCode
  | PasskeyErrorCode
  | OauthErrorCode
  | SmartAccountErrorCode
  | SolanaErrorCode
  | ExternalWalletErrorCode
  | "OAUTH_FAILED"
  | "ACTIVITY_FAILED"
  | FrameErrorCode
  | ConnectionErrorCode
  | ApiErrorCode;
