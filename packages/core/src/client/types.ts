import type {
  Activity,
  AuthMethods,
  AuthRequest,
  AuthResponse,
  EmailMode,
  EmailSignupRequest,
  LookupResponse,
  MultiFactorsResponse,
  OtpRequest,
  OtpResponse,
  PasskeySignupRequest,
  PrepareOauthResponse,
  RequestMultiFactorResponse,
  RouteParameters,
  RouteRequest,
  SignerConfigResponse,
  SignerRoutes,
  SignPayloadResponse,
  SignupResponse,
  StampedRequest,
  StampHeader,
  ValidateMultiFactorsResponse,
  WhoamiResponse,
} from "@latchkey/protocol";

// The wire's shapes are protocol's (one definition, shared with the service); these are re-exports.
export type {
  Activity,
  AuthMethods,
  AuthResponse,
  EmailMode,
  LookupResponse,
  MultiFactorsResponse,
  OtpResponse,
  PrepareOauthResponse,
  RequestMultiFactorResponse,
  SignerConfigResponse,
  SignPayloadResponse,
  SignupResponse,
  StampedRequest,
  StampHeader,
  ValidateMultiFactorsResponse,
  WhoamiResponse,
};

/** A second factor's id and the code from the authenticator app. */
export type MultiFactorCode = RouteRequest<SignerRoutes["authValidateMultiFactors"]>["multiFactors"][number];

/** An email sign-up: the address, how to prove it, and the browser's target key. */
export type EmailSignupParams = EmailSignupRequest;

/** A passkey sign-up: the new credential's attestation and its challenge. */
export type PasskeySignupParams = PasskeySignupRequest;

/** An email sign-in of an existing user. */
export type EmailAuthParams = AuthRequest;

/** A mailed code to trade for a credential bundle. */
export type OtpParams = OtpRequest;

/** A payload to sign with one of the user's wallet accounts, and how to hash it. */
export type SignRawPayloadParams = RouteParameters<SignerRoutes["signPayload"]> & { orgId: string };

/** What `navigator.credentials.create()` answered, as the service verifies it (spec §3). */
export type PasskeyAttestation = PasskeySignupRequest["passkey"]["attestation"];

/**
 * The part of `navigator.credentials` that passkeys use. The signer takes the browser's by default; tests
 * and other runtimes may pass their own.
 */
export interface PasskeyCredentials {
  create(options: CredentialCreationOptions): Promise<Credential | null>;
  get(options: CredentialRequestOptions): Promise<Credential | null>;
}

/** Signs a request body: a key holder's session key (`X-Stamp`) or a passkey (`X-Stamp-WebAuthn`). */
export type Stamper = (body: string) => Promise<StampHeader>;

/** A passkey of the user, as the key-management API lists it (`get_authenticators`). */
export interface Authenticator {
  authenticatorId: string;
  authenticatorName: string;
  credentialId: string;
  transports: string[];
  aaguid: string;
  createdAt: { seconds: string; nanos: string };
  updatedAt: { seconds: string; nanos: string };
}

/** A new session key for this browser's target key (after a passkey sign-in). */
export interface CreateReadWriteSessionParams {
  /** The user's organisation, or the app's root organisation for a passkey login. */
  organizationId: string;
  targetPublicKey: string;
  expirationSeconds?: number;
  userId?: string;
  apiKeyName?: string;
  invalidateExisting?: boolean;
}

/** `result.createReadWriteSessionResultV2` of a create_read_write_session activity. */
export interface CreateReadWriteSessionResult {
  organizationId: string;
  organizationName?: string;
  userId: string;
  username?: string;
  apiKeyId: string;
  credentialBundle: string;
}

/** The signer whoami of a passkey-stamped request: the user, and the credential that signed. */
export type PasskeyWhoamiResponse = WhoamiResponse & { credentialId: string };

/** Whether the user has a passkey, and which. */
export interface PasskeyStatus {
  isPasskeyAdded: boolean;
  passkeys: AuthMethods["passkeys"];
}
