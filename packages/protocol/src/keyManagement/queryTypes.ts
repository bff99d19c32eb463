/**
 * Key-management queries (`POST /public/v1/query/*`, DESIGN §3.3). A query body may name itself in
 * `type` (Latchkey's client always does): a body that names another operation is refused, so a signed
 * submit can never be replayed as a read, nor one read as another.
 *
 * Plain data (no schema library), so a client can name its queries without shipping the schemas.
 */
export const queryTypes = {
  whoami: "QUERY_TYPE_WHOAMI",
  get_user: "QUERY_TYPE_GET_USER",
  list_wallets: "QUERY_TYPE_LIST_WALLETS",
  list_wallet_accounts: "QUERY_TYPE_LIST_WALLET_ACCOUNTS",
  get_activity: "QUERY_TYPE_GET_ACTIVITY",
  get_authenticators: "QUERY_TYPE_GET_AUTHENTICATORS",
  get_api_keys: "QUERY_TYPE_GET_API_KEYS",
  list_audit_events: "QUERY_TYPE_LIST_AUDIT_EVENTS",
  list_users: "QUERY_TYPE_LIST_USERS",
  list_activities: "QUERY_TYPE_LIST_ACTIVITIES",
  get_policy: "QUERY_TYPE_GET_POLICY",
  list_policies: "QUERY_TYPE_LIST_POLICIES",
  get_recovery_shares: "QUERY_TYPE_GET_RECOVERY_SHARES",
  preview_signing: "QUERY_TYPE_PREVIEW_SIGNING",
} as const;
export type QueryName = keyof typeof queryTypes;
