import type {
  ActivitiesTable,
  AuditLogTable,
  GrantsTable,
  GrantTokenSpendsTable,
  UserTokenCountersTable,
  UserTokenSpendsTable,
} from "./tables/activities";
import type { AppApiKeysTable, AppsTable } from "./tables/apps";
import type {
  ConsoleAdminsTable,
  ConsoleEnrolmentsTable,
  ConsolePasskeysTable,
  ConsoleSessionsTable,
} from "./tables/console";
import type { DataKeysTable, RateLimitsTable, ServiceKeysTable } from "./tables/service";
import type {
  ApiKeysTable,
  AuthenticatorsTable,
  ContactOtpsTable,
  MfaChallengesTable,
  MfaFactorsTable,
  OauthRequestsTable,
  OtpsTable,
  SiweNoncesTable,
  StampReplaysTable,
  UserOauthProvidersTable,
} from "./tables/signIn";
import type {
  SolanaSponsorshipSpendTable,
  SponsorshipSpendTable,
  SponsorshipUsageTable,
} from "./tables/sponsorship";
import type {
  ImportKeysTable,
  RecoverySharesTable,
  UsersTable,
  WalletAccountsTable,
  WalletReserveTable,
  WalletsTable,
} from "./tables/users";
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from "./tables/webhooks";

export type * from "./tables/activities";
export type * from "./tables/apps";
export type * from "./tables/console";
export type * from "./tables/service";
export type * from "./tables/signIn";
export type * from "./tables/sponsorship";
export type * from "./tables/users";
export type * from "./tables/webhooks";

/**
 * The database's tables, by the name Kysely queries them with. Each table's row is written in db/tables/,
 * by group; a new table is an interface there, a line here and a migration (db/migrations/).
 * Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.
 */
export interface Database {
  console_admins: ConsoleAdminsTable;
  console_enrolments: ConsoleEnrolmentsTable;
  console_passkeys: ConsolePasskeysTable;
  console_sessions: ConsoleSessionsTable;
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
  import_keys: ImportKeysTable;
  recovery_shares: RecoverySharesTable;
  api_keys: ApiKeysTable;
  otps: OtpsTable;
  contact_otps: ContactOtpsTable;
  activities: ActivitiesTable;
  grants: GrantsTable;
  grant_token_spends: GrantTokenSpendsTable;
  user_token_spends: UserTokenSpendsTable;
  user_token_counters: UserTokenCountersTable;
  rate_limits: RateLimitsTable;
  audit_log: AuditLogTable;
}
