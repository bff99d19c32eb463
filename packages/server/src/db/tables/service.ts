// The service's own rows: wrapped data keys (crypto/keyring.ts), its keys, rate-limit counters.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

export interface DataKeysTable {
  id: string;
  wrapped_key: string;
  kek_id: string;
  active: number;
  created_at: number;
}
export interface RateLimitsTable {
  key: string;
  window_start: number;
  count: number;
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
