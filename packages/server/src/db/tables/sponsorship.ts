// What sponsorship spent (features/sponsorship).
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

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
