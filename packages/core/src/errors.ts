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
  NO_PENDING_MFA: "No pending MFA context found. Call submitOtpCode() first.",
  MFA_FACTOR_MISMATCH: "MFA factor ID mismatch",
  NOT_CONNECTED: "Signer not connected or initialized",
  MUST_BE_AUTHENTICATED: "Must be authenticated!",
  NO_SOLANA_ADDRESS: "no solana address",
  AUTH_LINKING_PARAMS_MISSING: "Missing required query params for auth linking prompt",
  EMAIL_EMPTY: "Email must not be empty. Use removeEmail() to remove email auth.",
  CREATE_API_KEY_FAILED: "Failed to create api key",
  INJECT_BUNDLE_FAILED: "Failed to inject credential bundle",
} as const;
export type SignerErrorCode = keyof typeof SignerErrorMessages;

/** Base of every error @latchkey/core throws; `code` is stable and machine-readable. */
export class LatchkeyError extends Error {
  override name = "LatchkeyError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A state or precondition error of the signer, with the catalogue's exact message. */
export class SignerError extends LatchkeyError {
  override name = "SignerError";
  declare readonly code: SignerErrorCode;
  constructor(code: SignerErrorCode, options?: { cause?: unknown }) {
    super(code, SignerErrorMessages[code], options);
  }
}

export interface MultiFactor {
  multiFactorId: string;
  multiFactorType?: "totp";
}

/**
 * A non-2xx answer of the service. `message` and `code` are the service's own (`error`/`message` and
 * `code` of the body); `responseText` is the raw body, which the UI may parse itself (DESIGN §3.1).
 */
export class SignerApiError extends LatchkeyError {
  override name = "SignerApiError";
  declare readonly code: ErrorCode | "HTTP_ERROR";
  readonly status: number;
  readonly path: string;
  readonly data: Record<string, unknown> | undefined;
  readonly details: unknown[] | undefined;
  readonly responseText: string;
  /** Present when the service asks for a second factor (`data.multiFactors`). */
  readonly multiFactors: MultiFactor[] | undefined;
  constructor(args: { status: number; path: string; responseText: string }) {
    let body: { error?: unknown; message?: unknown; code?: unknown; data?: unknown; details?: unknown } = {};
    try {
      body = JSON.parse(args.responseText) as typeof body;
    } catch {}
    const message =
      typeof body.error === "string"
        ? body.error
        : typeof body.message === "string"
          ? body.message
          : args.responseText || `HTTP ${args.status}`;
    const code = typeof body.code === "string" ? (body.code as ErrorCode) : "HTTP_ERROR";
    super(code, message);
    this.status = args.status;
    this.path = args.path;
    this.responseText = args.responseText;
    this.data =
      typeof body.data === "object" && body.data !== null
        ? (body.data as Record<string, unknown>)
        : undefined;
    this.details = Array.isArray(body.details) ? body.details : undefined;
    const factors = this.data?.multiFactors;
    this.multiFactors = Array.isArray(factors) ? (factors as MultiFactor[]) : undefined;
  }
}

/** The service needs a second factor before it issues a session (email auth or OTP with MFA). */
export class MfaRequiredError extends LatchkeyError {
  override name = "MfaRequiredError";
  readonly multiFactors: MultiFactor[];
  constructor(multiFactors: MultiFactor[], options?: { cause?: unknown }) {
    super("MFA_REQUIRED", SignerErrorMessages.MFA_REQUIRED, options);
    this.multiFactors = multiFactors;
  }
}

/**
 * A key-management activity that ended FAILED, REJECTED or CONSENSUS_NEEDED (spec §4). `code` is always
 * "ACTIVITY_FAILED"; which of the three it was is `activityStatus`.
 */
export class ActivityError extends LatchkeyError {
  override name = "ActivityError";
  declare readonly code: "ACTIVITY_FAILED";
  readonly activityId: string;
  readonly activityStatus: string;
  constructor(activity: { id: string; status: string; failure?: { code: string; message: string } }) {
    super(
      "ACTIVITY_FAILED",
      activity.failure?.message ?? `Activity ${activity.id} ended with status ${activity.status}`,
    );
    this.activityId = activity.id;
    this.activityStatus = activity.status;
  }
}

/** Messages of the passkey errors (spec §5, §8). */
export const PasskeyErrorMessages = {
  PASSKEY_CANCELLED:
    "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
  WEBAUTHN_UNSUPPORTED: "Passkey registration needs browser WebAuthn support, which is not available here",
  RP_ID_REQUIRED: "Passkeys need a relying-party id: set the signer's rpId option outside a browser page",
  PASSKEY_ALREADY_REGISTERED: "This passkey is already registered for this account",
  PASSKEY_FAILED: "The passkey request failed",
} as const;
export type PasskeyErrorCode = keyof typeof PasskeyErrorMessages;

/**
 * A passkey ceremony that did not produce a credential. `code` says why; the browser's own error, when
 * there is one, is the `cause`.
 */
export class PasskeyError extends LatchkeyError {
  override name: string = "PasskeyError";
  declare readonly code: PasskeyErrorCode;
  constructor(code: PasskeyErrorCode, options?: { cause?: unknown; message?: string }) {
    super(code, options?.message ?? PasskeyErrorMessages[code], options);
  }
}

/**
 * The user dismissed the passkey prompt, it timed out, or the app aborted it (WebAuthn's
 * `NotAllowedError` / `AbortError`). Its `name` ("PasskeyCancelledError") survives in the signer's state
 * error, so a UI can go back to its initial step instead of showing a failure.
 */
export class PasskeyCancelledError extends PasskeyError {
  override name = "PasskeyCancelledError";
  declare readonly code: "PASSKEY_CANCELLED";
  constructor(options?: { cause?: unknown }) {
    super("PASSKEY_CANCELLED", options);
  }
}

/** Whether `error` (or a signer state error `{name}`) is a cancelled passkey prompt. */
export function isPasskeyCancelled(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "PasskeyCancelledError"
  );
}
