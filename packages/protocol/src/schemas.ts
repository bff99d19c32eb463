import { z } from "zod";
import { MAX_SESSION_EXPIRATION_SECONDS } from "./constants";
import { fromHex } from "./crypto/hex";
import { uncompressP256PublicKey } from "./crypto/p256";

function isOnP256(hexKey: string): boolean {
  try {
    uncompressP256PublicKey(fromHex(hexKey));
    return true;
  } catch {
    return false;
  }
}

/**
 * Wire schemas of the signer API (`/signer/v1/*`, DESIGN §3.1) and the key-management API
 * (`/public/v1/*`, DESIGN §3.3). Unknown keys are stripped, not refused, so newer clients keep working.
 */

const hex = z.string().regex(/^(0x)?[0-9a-fA-F]*$/, "must be hex");
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "must be a valid email address" }))
  .transform((s) => s.toLowerCase());

/** P-256 public key in hex: 65-byte uncompressed (04…) or 33-byte compressed (02…/03…). */
export const p256PublicKeyHexSchema = z
  .string()
  .regex(/^(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/, "must be a P-256 public key in hex")
  .refine(isOnP256, "is not a point on the P-256 curve")
  .transform((s) => s.toLowerCase());

/** Seconds, as a number or a numeric string (clients send either). */
export const expirationSecondsSchema = z
  .union([z.number(), z.string().regex(/^\d+$/, "must be a whole number of seconds").transform(Number)])
  .pipe(z.number().int().min(60).max(MAX_SESSION_EXPIRATION_SECONDS));

export const emailModeSchema = z.enum(["magicLink", "otp"]);
export type EmailMode = z.infer<typeof emailModeSchema>;

export const multiFactorSchema = z.object({
  multiFactorId: z.string().min(1).max(128),
  multiFactorCode: z.string().regex(/^\d{6}$/, "must be 6 digits"),
});

const redirectFields = {
  /** Extra query parameters appended to the magic link (URLSearchParams text). */
  redirectParams: z.string().max(2048).optional(),
  /** Where the magic link leads; must be on the app's magic-link allow-list (defaults to its first entry). */
  redirectUrl: z.string().url().max(2048).optional(),
};

export const emailSignupRequestSchema = z.object({
  email: emailSchema,
  emailMode: emailModeSchema.optional(),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  ...redirectFields,
});
export type EmailSignupRequest = z.input<typeof emailSignupRequestSchema>;

export const authRequestSchema = z.object({
  email: emailSchema,
  emailMode: emailModeSchema.optional(),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  multiFactors: z.array(multiFactorSchema).max(5).optional(),
  ...redirectFields,
});
export type AuthRequest = z.input<typeof authRequestSchema>;

export const otpRequestSchema = z.object({
  orgId: z.string().min(1).max(128),
  otpId: z.string().min(1).max(128),
  otpCode: z.string().regex(/^\d{6}$/, "must be 6 digits"),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  multiFactors: z.array(multiFactorSchema).max(5).optional(),
});
export type OtpRequest = z.input<typeof otpRequestSchema>;

export const lookupRequestSchema = z.object({ email: emailSchema });
export type LookupRequest = z.input<typeof lookupRequestSchema>;

export const stampSchema = z.object({
  stampHeaderName: z.string().min(1).max(64),
  stampHeaderValue: z.string().min(1).max(8192),
});

/** A key-management request signed by a session key, executed in-process by a signer endpoint. */
export const stampedRequestSchema = z.object({
  body: z
    .string()
    .min(2)
    .max(32 * 1024),
  stamp: stampSchema,
  url: z.string().min(1).max(2048),
});
export type StampedRequest = z.infer<typeof stampedRequestSchema>;

export const stampedRequestBodySchema = z.object({ stampedRequest: stampedRequestSchema });

// ---- passkeys (WebAuthn) ----

const b64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url");
const TRANSPORTS: Record<string, string> = {
  AUTHENTICATOR_TRANSPORT_BLE: "ble",
  AUTHENTICATOR_TRANSPORT_INTERNAL: "internal",
  AUTHENTICATOR_TRANSPORT_NFC: "nfc",
  AUTHENTICATOR_TRANSPORT_USB: "usb",
  AUTHENTICATOR_TRANSPORT_HYBRID: "hybrid",
};
/** Transports as WebAuthn names them; the `AUTHENTICATOR_TRANSPORT_*` spelling is accepted too. */
export const transportSchema = z
  .string()
  .max(64)
  .transform((t) => TRANSPORTS[t] ?? t.toLowerCase())
  .pipe(z.enum(["ble", "internal", "nfc", "usb", "hybrid", "cable", "smart-card"]));

export const passkeyAttestationSchema = z.object({
  credentialId: b64url.max(1024),
  clientDataJson: b64url.max(8192),
  attestationObject: b64url.max(16384),
  transports: z.array(transportSchema).max(8).default([]),
});
export const passkeyRegistrationSchema = z.object({
  /** base64url of the 32 random bytes the client used as the WebAuthn challenge. */
  challenge: b64url.min(16).max(256),
  attestation: passkeyAttestationSchema,
});
export const passkeySignupRequestSchema = z.object({
  passkey: passkeyRegistrationSchema,
  email: emailSchema.optional(),
  /** Optional: a session bundle sealed to this key comes back at once (sign-up in one passkey prompt). */
  targetPublicKey: p256PublicKeyHexSchema.optional(),
  expirationSeconds: expirationSecondsSchema.optional(),
});
export type PasskeySignupRequest = z.input<typeof passkeySignupRequestSchema>;

/** The `X-Stamp-WebAuthn` header's JSON: an assertion whose challenge is hex(sha256(body)). */
export const webauthnStampSchema = z.object({
  credentialId: b64url.max(1024),
  authenticatorData: b64url.max(4096),
  clientDataJson: b64url.max(8192),
  signature: b64url.max(1024),
  userHandle: b64url.max(1024).optional(),
});
export type WebauthnStamp = z.infer<typeof webauthnStampSchema>;

// ---- social sign-in (OpenID Connect) ----

export const prepareOauthRequestSchema = z.object({
  /** hex sha256 of the browser's target public key; the ID token must carry it. */
  nonce: z.string().regex(/^[0-9a-f]{64}$/, "must be the hex SHA-256 of the target public key"),
});
export interface PrepareOauthResponse {
  codeChallenge: string;
  requestKey: string;
  authProviders: { id: string; isCustomProvider?: boolean; clientId: string; authEndpoint: string }[];
}

/** The OAuth `state`: base64url JSON built by the client, verified by the service's callback. */
export const oauthStateSchema = z.object({
  authProviderId: z.string().min(1).max(64),
  requestKey: z.string().min(1).max(128),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  mode: z.enum(["popup", "redirect"]),
  /** redirect mode: where to return (on the app's allow-list). */
  redirectUrl: z.string().url().max(2048).optional(),
  /** popup mode: the opener's exact origin, which the result is posted to. */
  openerOrigin: z.string().url().max(512).optional(),
  /** Adding a provider while signed in: answer with the ID token only. */
  fetchIdTokenOnly: z.boolean().optional(),
});
export type OauthState = z.input<typeof oauthStateSchema>;

export type OauthStatus = "SUCCESS" | "ACCOUNT_LINKING_CONFIRMATION_REQUIRED" | "FETCHED_ID_TOKEN_ONLY";

/** What the pop-up posts to its opener (and, as query parameters, what a redirect carries). */
export interface OauthPopupMessage {
  status: OauthStatus | "ERROR";
  bundle?: string;
  orgId?: string;
  idToken?: string;
  isSignup?: boolean;
  error?: string;
  otpId?: string;
  email?: string;
  authProvider?: string;
}

// ---- MFA (TOTP) ----

export const multiFactorTypeSchema = z.literal("totp");
export const mfaRequestSchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorType: multiFactorTypeSchema,
});
export const mfaVerifySchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorId: z.string().min(1).max(128),
  multiFactorCode: z.string().regex(/^\d{6}$/, "must be 6 digits"),
});
export const mfaDeleteSchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorIds: z.array(z.string().min(1).max(128)).min(1).max(10),
});
export const mfaValidateSchema = z.object({
  encryptedPayload: z.string().min(1).max(4096),
  multiFactors: z.array(multiFactorSchema).min(1).max(5),
});
export const listAuthMethodsSchema = z.object({
  suborgId: z.string().min(1).max(128),
  stampedRequest: stampedRequestSchema,
});

export interface MultiFactor {
  multiFactorId: string;
  multiFactorType: "totp";
}
export interface AuthMethods {
  email?: string;
  oauthProviders: { providerId: string; issuer: string; providerName?: string; userDisplayName?: string }[];
  passkeys: { authenticatorId: string; name: string; createdAt: number }[];
  mfaFactors?: MultiFactor[];
}

// ---- key-management API (/public/v1) ----

export const payloadEncodingSchema = z.enum(["PAYLOAD_ENCODING_HEXADECIMAL", "PAYLOAD_ENCODING_TEXT_UTF8"]);
export const hashFunctionSchema = z.enum([
  "HASH_FUNCTION_NO_OP",
  "HASH_FUNCTION_SHA256",
  "HASH_FUNCTION_KECCAK256",
  "HASH_FUNCTION_NOT_APPLICABLE",
]);
export type PayloadEncoding = z.infer<typeof payloadEncodingSchema>;
export type HashFunction = z.infer<typeof hashFunctionSchema>;

const orgId = z.string().min(1).max(128);
const timestampMs = z.string().regex(/^\d{1,16}$/, "must be milliseconds since the epoch, as a string");

export const signRawPayloadParametersSchema = z.object({
  signWith: z.string().min(1).max(128),
  payload: z.string().max(16 * 1024),
  encoding: payloadEncodingSchema,
  hashFunction: hashFunctionSchema,
});
export const signRawPayloadsParametersSchema = z.object({
  signWith: z.string().min(1).max(128),
  payloads: z
    .array(z.string().max(16 * 1024))
    .min(1)
    .max(64),
  encoding: payloadEncodingSchema,
  hashFunction: hashFunctionSchema,
});
export const createReadWriteSessionParametersSchema = z.object({
  targetPublicKey: p256PublicKeyHexSchema,
  userId: z.string().max(128).optional(),
  apiKeyName: z.string().max(256).optional(),
  expirationSeconds: expirationSecondsSchema.optional(),
  invalidateExisting: z.boolean().optional(),
});
export const createApiKeysParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  apiKeys: z
    .array(
      z.object({
        apiKeyName: z.string().min(1).max(256),
        publicKey: p256PublicKeyHexSchema,
        curveType: z.literal("API_KEY_CURVE_P256").optional(),
        expirationSeconds: expirationSecondsSchema.optional(),
      }),
    )
    .min(1)
    .max(10),
});
export const createAuthenticatorsParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  authenticators: z
    .array(passkeyRegistrationSchema.extend({ authenticatorName: z.string().min(1).max(256) }))
    .min(1)
    .max(5),
});
export const deleteAuthenticatorsParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  authenticatorIds: z.array(z.string().min(1).max(128)).min(1).max(20),
});
export const createOauthProvidersParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  oauthProviders: z
    .array(
      z.object({
        providerName: z.string().min(1).max(64),
        oidcToken: z.string().min(16).max(16_384),
        /**
         * The browser's target public key (P-256, hex). Required for an ID token fetched
         * while signed in (FETCHED_ID_TOKEN_ONLY): its nonce must be this key's hash, so a token fetched
         * in one browser cannot be attached to an account in another.
         */
        targetPublicKey: p256PublicKeyHexSchema.optional(),
      }),
    )
    .min(1)
    .max(5),
});
export const deleteOauthProvidersParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  providerIds: z.array(z.string().min(1).max(128)).min(1).max(20),
});
export const deleteApiKeysParametersSchema = z.object({
  userId: z.string().min(1).max(128),
  apiKeyIds: z.array(z.string().min(1).max(128)).min(1).max(100),
});

/** Submit activity types served today, keyed by the submit path that carries them. */
export const activityParameterSchemas = {
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: signRawPayloadParametersSchema,
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: signRawPayloadsParametersSchema,
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: createReadWriteSessionParametersSchema,
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: createApiKeysParametersSchema,
  ACTIVITY_TYPE_DELETE_API_KEYS: deleteApiKeysParametersSchema,
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: createAuthenticatorsParametersSchema,
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: deleteAuthenticatorsParametersSchema,
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: createOauthProvidersParametersSchema,
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: deleteOauthProvidersParametersSchema,
} as const;
export type ActivityType = keyof typeof activityParameterSchemas;

export const submitPathActivityTypes: Record<string, readonly ActivityType[]> = {
  sign_raw_payload: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"],
  sign_raw_payloads: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOADS"],
  create_read_write_session: ["ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"],
  create_api_keys: ["ACTIVITY_TYPE_CREATE_API_KEYS_V2"],
  delete_api_keys: ["ACTIVITY_TYPE_DELETE_API_KEYS"],
  create_authenticators: ["ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2"],
  delete_authenticators: ["ACTIVITY_TYPE_DELETE_AUTHENTICATORS"],
  create_oauth_providers: ["ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS"],
  delete_oauth_providers: ["ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS"],
};

export const submitEnvelopeSchema = z.object({
  type: z.string().min(1).max(128),
  timestampMs,
  organizationId: orgId,
  parameters: z.record(z.string(), z.unknown()),
});
export type SubmitEnvelope = z.infer<typeof submitEnvelopeSchema>;

export const querySchemas = {
  whoami: z.object({ organizationId: orgId }),
  get_user: z.object({ organizationId: orgId, userId: z.string().min(1).max(128) }),
  list_wallets: z.object({ organizationId: orgId }),
  list_wallet_accounts: z.object({ organizationId: orgId, walletId: z.string().min(1).max(128) }),
  get_activity: z.object({ organizationId: orgId, activityId: z.string().min(1).max(128) }),
  get_authenticators: z.object({ organizationId: orgId, userId: z.string().min(1).max(128) }),
  get_api_keys: z.object({ organizationId: orgId, userId: z.string().max(128).optional() }),
} as const;
export type QueryName = keyof typeof querySchemas;

// ---- response shapes ----

export interface SignupResponse {
  orgId: string;
  userId?: string;
  address?: string;
  solanaAddress?: string;
  otpId?: string;
  /** Passkey sign-up with a targetPublicKey: the new user's session, sealed to that key. */
  credentialBundle?: string;
}
export interface AuthResponse {
  orgId: string;
  otpId?: string;
  multiFactors?: { multiFactorId: string; multiFactorType: "totp" }[];
}
export type OtpResponse =
  | { status: "SUCCESS"; credentialBundle: string }
  | {
      status: "MFA_REQUIRED";
      encryptedPayload: string;
      multiFactors: { multiFactorId: string; multiFactorType: "totp" }[];
    };
export interface LookupResponse {
  orgId: string | null;
}
export interface WhoamiResponse {
  email?: string;
  orgId: string;
  userId: string;
  address: string;
  solanaAddress?: string;
  idToken?: string;
  /** Set when a passkey stamped the request. */
  credentialId?: string;
}
export interface SignerConfigResponse {
  email: { mode: "OTP" | "MAGIC_LINK" };
  /** The app's root organisation: what a passkey login addresses before the user is known. */
  rootOrgId: string;
}
export interface SignPayloadResponse {
  signature: `0x${string}`;
}

export type ActivityStatus =
  | "ACTIVITY_STATUS_CREATED"
  | "ACTIVITY_STATUS_PENDING"
  | "ACTIVITY_STATUS_COMPLETED"
  | "ACTIVITY_STATUS_FAILED"
  | "ACTIVITY_STATUS_REJECTED"
  | "ACTIVITY_STATUS_CONSENSUS_NEEDED";

export interface Activity {
  id: string;
  organizationId: string;
  status: ActivityStatus;
  type: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  fingerprint: string;
  createdAt: { seconds: string; nanos: string };
  updatedAt: { seconds: string; nanos: string };
  failure?: { code: string; message: string };
}

export interface SignRawPayloadResult {
  r: string;
  s: string;
  v: string;
}

export { hex as hexStringSchema };
