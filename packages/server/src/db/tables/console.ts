// The admin console's people, passkeys and sign-ins (features/admin/console).
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

/** A person who administers one app in the console (features/admin/console); `latchkey admin create`. */
export interface ConsoleAdminsTable {
  id: string;
  app_id: string;
  name: string;
  created_at: number;
  /** When the admin was removed: their passkeys and sessions no longer work. */
  revoked_at: number | null;
}
/** A one-time link that enrols a passkey for a console admin: only the token's sha256 is kept. */
export interface ConsoleEnrolmentsTable {
  token_hash: string;
  admin_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}
/** A console admin's passkey, bound to the relying party and origin it was enrolled on. */
export interface ConsolePasskeysTable {
  id: string;
  admin_id: string;
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of transports. */
  transports: string;
  rp_id: string;
  origin: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}
/** A console sign-in: a P-256 key the browser made (compressed hex), which stamps the admin API. */
export interface ConsoleSessionsTable {
  id: string;
  admin_id: string;
  public_key: string;
  expires_at: number;
  created_at: number;
  revoked_at: number | null;
}
