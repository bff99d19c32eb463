// Users and their wallets (users/).
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

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
  /** The app's own id for the user (pregenerated or imported users), unique per app; null otherwise. */
  external_id?: string | null;
  /** When the app's backend made the user before the person signed in (features/userImport). */
  pregenerated_at?: number | null;
  /** When a pregenerated user first signed in (sessions/issueSession.ts); null until then. */
  claimed_at?: number | null;
  /**
   * The session (api_keys.id) a social sign-up made: the one social session that counts as a fresh
   * sign-in while the account is minutes old (sessions/stepUp.ts); null otherwise.
   */
  signup_session_id?: string | null;
}
export interface WalletsTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  sealed_mnemonic: string;
  created_at: number;
  /**
   * What an imported wallet came from: "mnemonic", "evm_private_key" or "solana_private_key"; null for a
   * wallet the service made. A key's wallet has no phrase (`sealed_mnemonic` is empty).
   */
  imported?: string | null;
  /**
   * "service" (the service holds the wallet sealed) or "split" (docs/split-custody.md: made by the user's
   * key holder and split 2-of-2; `sealed_mnemonic` and the accounts' `sealed_private_key` are "").
   */
  custody?: "service" | "split";
  /** A split wallet's service share, sealed under `wallet_share:<id>`; null for a service wallet. */
  sealed_service_share?: string | null;
  /**
   * A whole wallet being split (begin_split_wallet, docs/split-custody.md §3.1): the service's share of
   * the split, sealed under `wallet_pending_share:<id>`, until complete_split_wallet; null otherwise.
   */
  sealed_pending_share?: string | null;
}
/** A split wallet's user share, encrypted under a key only the user has (set_recovery_share). */
export interface RecoverySharesTable {
  id: string;
  wallet_id: string;
  org_id: string;
  user_id: string;
  kind: "passkey" | "code";
  /** The passkey's credential id, or "" for a recovery code. */
  credential_id: string;
  /** JSON of the RecoveryBlob, as the key holder made it. */
  blob: string;
  created_at: number;
}
/** One wallet import's key (init_import_wallet): single use, short-lived, sealed like every secret. */
export interface ImportKeysTable {
  id: string;
  user_id: string;
  org_id: string;
  /** Uncompressed P-256 hex. */
  public_key: string;
  /** Sealed under `import_key:<id>`; emptied once the key is used. */
  sealed_private_key: string;
  expires_at: number;
  used_at: number | null;
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
  /** "" for an account of a split wallet (its key is in no row: docs/split-custody.md). */
  sealed_private_key: string;
  /** A split wallet's account: its position among the wallet secret's keys; null otherwise. */
  secret_index?: number | null;
  created_at: number;
}
