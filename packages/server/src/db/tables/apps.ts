// An app (apps/appDirectory.ts) and its API keys.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

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
  /** "service" (default) or "split": how the app's new users' wallets are kept (docs/split-custody.md). */
  custody?: "service" | "split";
  /** JSON `[{name, publicKey}]`: the app's server keys (features/grants), who may call the backend API. */
  server_keys?: string | null;
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
