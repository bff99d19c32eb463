// Activities (keyManagement/): what users and apps asked for, the grants behind them, the audit log.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

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
  /** The grant a signature by the app's backend was made under (features/grants); null otherwise. */
  grant_id?: string | null;
  /**
   * Split custody (docs/split-custody.md §7): the app admin key that approved a split wallet's held
   * signature, when, and until when the user's device may complete it; null otherwise.
   */
  approved_by?: string | null;
  approved_at?: number | null;
  approval_expires_at?: number | null;
  /**
   * A held signature (issue 46): JSON of what it does as read when it was asked — the decoded request
   * (bigints as strings), its simulation and the rule that held it (simulation/heldPreview.ts); null otherwise.
   */
  preview?: string | null;
  /** A held signature: JSON array of the admins who approved it, `{id, name, at}`, each once; null otherwise. */
  approvals?: string | null;
}
/**
 * A user's permission grant to the app's backend (features/grants). Its caps are counted here and
 * changed only by a compare-and-set on `version`.
 */
/** One token amount a signature under a grant can move (features/grants/tokenLimits.ts). */
export interface GrantTokenSpendsTable {
  id: string;
  grant_id: string;
  chain_id: number;
  /** Lower-case token address, or "native". */
  token: string;
  /** Decimal, in the token's smallest unit. */
  amount: string;
  reservation_id: string;
  spent_at: number;
}

/** One token amount a user's signature can move, under the app's signing policy's token limits. */
export interface UserTokenSpendsTable {
  id: string;
  app_id: string;
  org_id: string;
  chain_id: number;
  token: string;
  amount: string;
  /** The activity's body fingerprint: a body sent again is not counted twice. */
  fingerprint: string;
  spent_at: number;
}

/** A user's compare-and-set row for their token spends under the app's signing policy. */
export interface UserTokenCountersTable {
  app_id: string;
  org_id: string;
  version: number;
}

export interface GrantsTable {
  id: string;
  app_id: string;
  user_id: string;
  org_id: string;
  /** JSON of the grant's permissions (protocol's GrantPermissions). */
  permissions: string;
  /** "active" or "revoked"; an active grant past `expires_at` answers "expired". */
  status: string;
  expires_at: number;
  max_operations: number | null;
  operations_used: number;
  /** Decimal wei. */
  value_per_transaction: string;
  value_per_day: string | null;
  /** The UTC day (`YYYY-MM-DD`) `value_spent` counts for. */
  spend_day: string | null;
  /** Decimal wei moved on `spend_day`. */
  value_spent: string;
  version: number;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  /**
   * Split custody: the user share handed over at consent, sealed (`grant_share:<id>`); null for a service
   * user's grant and once the grant is revoked, expired or its user gone (docs/split-custody.md §5.1).
   */
  sealed_user_share?: string | null;
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
