/** Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text. */
export interface AppsTable {
  id: string;
  name: string;
  org_id: string;
  email_mode: "OTP" | "MAGIC_LINK";
  allowed_origins: string;
  magic_link_urls: string;
  webauthn_rp_id: string | null;
  webauthn_origins: string | null;
  oauth_providers: string | null;
  oauth_redirect_urls: string | null;
  /** JSON `{issuer, jwksUrl, audience?}` when the app's backend may authenticate with a JWT. */
  jwt_config: string | null;
  locale: string;
  /** JSON `{policies, solanaPolicies}` (config.ts sponsorshipConfigSchema) when the app sponsors anything. */
  sponsorship?: string | null;
  /** JSON of the app's signing policy (keyManagement/policies/policySchema.ts); null: none. */
  signing_policy?: string | null;
  created_at: number;
  updated_at: number;
}
export interface AppApiKeysTable {
  id: string;
  app_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
}
export interface DataKeysTable {
  id: string;
  wrapped_key: string;
  kek_id: string;
  active: number;
  created_at: number;
}
export interface UsersTable {
  id: string;
  org_id: string;
  app_id: string;
  email: string | null;
  unverified_email?: string | null;
  created_at: number;
  /** "7702" or "4337": the smart-account kind the user first used; null until then. */
  smart_account_kind?: string | null;
  /** When an app admin disabled the user (admin API): no sign-in, no signature; null when enabled. */
  disabled_at?: number | null;
}
export interface WalletsTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  sealed_mnemonic: string;
  created_at: number;
}
/** An account of a wallet not yet anyone's: its `wallet_accounts` row without the owner and the time. */
export type SealedAccount = Omit<WalletAccountsTable, "wallet_id" | "org_id" | "created_at">;

/** A new wallet ready to store (users/sealWallet.ts): the mnemonic and private keys sealed to their ids. */
export interface SealedWallet {
  id: string;
  sealedMnemonic: string;
  accounts: SealedAccount[];
}

/** A wallet derived ahead of any user (users/walletReserve.ts); a sign-up moves it into `wallets`. */
export interface WalletReserveTable {
  id: string;
  sealed_mnemonic: string;
  /** JSON: ReservedAccount[] (ids, curve, path, addresses, public key, sealed private key). */
  accounts: string;
  created_at: number;
}
export interface WalletAccountsTable {
  id: string;
  wallet_id: string;
  org_id: string;
  curve: "CURVE_SECP256K1" | "CURVE_ED25519";
  path: string;
  address_format: "ADDRESS_FORMAT_ETHEREUM" | "ADDRESS_FORMAT_SOLANA";
  address: string;
  /** EVM addresses lower-cased, Solana as is: what signWith lookups compare against. */
  address_key: string;
  public_key: string;
  sealed_private_key: string;
  created_at: number;
}
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
export interface ActivitiesTable {
  id: string;
  org_id: string;
  user_id: string;
  type: string;
  fingerprint: string;
  status: string;
  intent: string;
  result: string;
  failure: string | null;
  created_at: number;
  updated_at: number;
}
export interface RateLimitsTable {
  key: string;
  window_start: number;
  count: number;
}
export interface AuditLogTable {
  id: string;
  app_id: string | null;
  user_id: string | null;
  event: string;
  ip: string | null;
  details: string | null;
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

/** Keys the service itself holds (e.g. the paymaster signer), one per purpose, sealed like every secret. */
export interface ServiceKeysTable {
  id: string;
  purpose: string;
  /**
   * The key's public part: for a secp256k1 key its EVM address (checksummed), what an operator registers
   * on-chain; for a P-256 key (the SIWE token signer) its compressed public key in hex; for an ed25519
   * key (the Solana fee payer) its Solana address (base58).
   */
  address: string;
  /** Sealed with the keyring under `service_key:<id>`. */
  sealed_key: string;
  created_at: number;
}
/** One row per sponsored user operation, keyed by the operation: a retried request replaces its row. */
export interface SponsorshipSpendTable {
  chain_id: number;
  /** Lower-case address of the smart account. */
  sender: string;
  /** The operation's nonce, decimal. */
  nonce: string;
  app_id: string;
  policy_id: string;
  user_id: string;
  /** UTC day `YYYY-MM-DD` the spend counts for. */
  day: string;
  /** The most the operation can cost (its gas limits × maxFeePerGas), decimal wei: what is reserved. */
  wei: string;
  created_at: number;
  updated_at: number;
}
/**
 * One row per Solana transaction the fee payer signed, keyed by the fee payer's signature (the
 * transaction's id; ed25519 is deterministic, so the same message asked for again is the same row).
 */
export interface SolanaSponsorshipSpendTable {
  /** Base58 of the fee payer's 64-byte signature. */
  signature: string;
  app_id: string;
  policy_id: string;
  user_id: string;
  /** The user's Solana address that signs the transaction. */
  user_address: string;
  /** UTC day `YYYY-MM-DD` the spend counts for. */
  day: string;
  /** The most the fee payer pays for it (signatures and priority fee), decimal lamports. */
  fee_lamports: string;
  /** Lamports its System program instructions move, decimal. */
  lamports: string;
  created_at: number;
  updated_at: number;
}
/**
 * Daily totals per policy (EVM or Solana: the ids are one namespace per app), for the app (`scope` "app") and per user (`scope` "user:<id>"). */
export interface SponsorshipUsageTable {
  app_id: string;
  policy_id: string;
  scope: string;
  day: string;
  /** Operations (EVM) or transactions (Solana). */
  operations: number;
  /** The amount reserved: decimal wei (EVM) or fee lamports (Solana). */
  wei: string;
  updated_at: number;
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

/** An app's webhook endpoint (features/webhooks), from its config; one no longer configured keeps its log. */
export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** Sealed with the keyring under `webhook_secret:<app>:<id>`. */
  sealed_secret: string;
  created_at: number;
  updated_at: number;
  /** Set when the endpoint left the app's config: nothing more is sent to it. */
  removed_at: number | null;
}
/** An event to deliver (the outbox), written in the transaction of its audit row; `id` is `webhook-id`. */
export interface WebhookEventsTable {
  id: string;
  app_id: string;
  type: string;
  /** The JSON body, exactly as signed and sent. */
  payload: string;
  created_at: number;
}
/** One event to one endpoint: pending until a 2xx answer (delivered) or the retry window's end (failed). */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  app_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number;
  /** After this, a failed attempt marks the delivery failed. */
  give_up_at: number;
  /** A claim by one instance: nobody else sends it before then. */
  leased_until: number | null;
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}
/** The delivery log: one row per attempt. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  app_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  /** The endpoint's HTTP status, or null when none came (refused, timed out). */
  status_code: number | null;
  error: string | null;
}

export interface Database {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  siwe_nonces: SiweNoncesTable;
  service_keys: ServiceKeysTable;
  sponsorship_spend: SponsorshipSpendTable;
  sponsorship_usage: SponsorshipUsageTable;
  solana_sponsorship_spend: SolanaSponsorshipSpendTable;
  oauth_requests: OauthRequestsTable;
  user_oauth_providers: UserOauthProvidersTable;
  authenticators: AuthenticatorsTable;
  mfa_factors: MfaFactorsTable;
  mfa_challenges: MfaChallengesTable;
  stamp_replays: StampReplaysTable;
  apps: AppsTable;
  app_api_keys: AppApiKeysTable;
  data_keys: DataKeysTable;
  users: UsersTable;
  wallets: WalletsTable;
  wallet_accounts: WalletAccountsTable;
  wallet_reserve: WalletReserveTable;
  api_keys: ApiKeysTable;
  otps: OtpsTable;
  contact_otps: ContactOtpsTable;
  activities: ActivitiesTable;
  rate_limits: RateLimitsTable;
  audit_log: AuditLogTable;
}
