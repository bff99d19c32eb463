// Sign-in: session keys, one-time codes, passkeys, second factors, OAuth and SIWE.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

/** The sign-in a session key came from: what wallet export's step-up reads (sessions/issueSession.ts). */
export type SignedInBy = "email_code" | "magic_link" | "passkey" | "totp" | "oauth";
export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  /** Compressed P-256 public key, hex. */
  public_key: string;
  kind: "session" | "api";
  /** How a session key was made (a sign-in method), or null: see `SignedInBy`. */
  signed_in_by?: SignedInBy | null;
  expires_at: number | null;
  created_at: number;
  revoked_at: number | null;
  /**
   * Issue 46: the public key (uncompressed P-256, hex) of the auth frame's confirmation key for this
   * session, registered by the frame; null until then (keyManagement/confirmation).
   */
  confirmation_key?: string | null;
}
export interface OtpsTable {
  id: string;
  app_id: string;
  org_id: string;
  user_id: string;
  email: string;
  code_hash: string;
  attempts: number;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}
export interface ContactOtpsTable {
  id: string;
  app_id: string;
  contact: string;
  code_hash: string;
  attempts: number;
  expires_at: number;
  used_at: number | null;
  token_used_at: number | null;
  created_at: number;
}
export interface AuthenticatorsTable {
  id: string;
  app_id: string;
  org_id: string;
  user_id: string;
  /** base64url */
  credential_id: string;
  /** base64url COSE public key */
  public_key: string;
  counter: number;
  transports: string;
  aaguid: string;
  name: string;
  /** The step-up proof the passkey was added with (`StepUpProofUsed`), or null: then it never counts as one. */
  added_with: string | null;
  created_at: number;
  last_used_at: number | null;
}
export interface MfaFactorsTable {
  id: string;
  user_id: string;
  type: "totp";
  sealed_secret: string;
  verified_at: number | null;
  /** The last TOTP time step accepted: a code is never accepted twice. */
  last_step: number;
  failed_attempts: number;
  locked_until: number | null;
  /**
   * The step-up proof the factor was requested (or verified) with (`StepUpProofUsed`), or null: a factor
   * without one never counts as a step-up proof.
   */
  added_with: string | null;
  created_at: number;
}
export interface MfaChallengesTable {
  id: string;
  user_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}
export interface StampReplaysTable {
  hash: string;
  expires_at: number;
}
export interface OauthRequestsTable {
  request_key: string;
  app_id: string;
  /** hex sha256 of the browser's target public key: the ID token must carry it as its nonce. */
  nonce: string;
  sealed_verifier: string;
  expires_at: number;
  used_at: number | null;
  /** Set when the callback accepted an ID token: only such a token may later be linked to an account. */
  id_token_hash: string | null;
  linked_at: number | null;
  /** Set for a linking prompt: the organisation the token may be linked to. */
  link_org_id?: string | null;
  /** 1 when the request only fetched an ID token (adding a provider while signed in). */
  fetch_only?: number;
  /** The person's name the provider gave at this sign-in (Apple: first authorisation only). */
  display_name?: string | null;
  created_at: number;
}
export interface UserOauthProvidersTable {
  id: string;
  app_id: string;
  user_id: string;
  provider_name: string;
  issuer: string;
  subject: string;
  email: string | null;
  /** The person's name as the provider gave it (Apple: only at the first authorisation). */
  name?: string | null;
  created_at: number;
}
/** Sign-In with Ethereum nonces: single use, bound to an app, an address and a chain. */
export interface SiweNoncesTable {
  /** Alphanumeric, from a CSPRNG. */
  nonce: string;
  app_id: string;
  /** Lower case. */
  address: string;
  chain_id: number;
  expires_at: number;
  /** Set the first time the nonce is presented, whatever the outcome. */
  used_at: number | null;
}
