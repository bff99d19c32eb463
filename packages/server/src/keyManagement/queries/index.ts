import type { QueryName } from "@latchkey/protocol";
import type { QueryHandler } from "./defineQuery";
import { getActivity } from "./getActivity";
import { getApiKeys } from "./getApiKeys";
import { getAuthenticators } from "./getAuthenticators";
import { getPolicy } from "./getPolicy";
import { getRecoveryShares } from "./getRecoveryShares";
import { getUser } from "./getUser";
import { listActivities } from "./listActivities";
import { listAuditEvents } from "./listAuditEvents";
import { listPolicies } from "./listPolicies";
import { listUsers } from "./listUsers";
import { listWalletAccounts } from "./listWalletAccounts";
import { listWallets } from "./listWallets";
import { previewSigning } from "./previewSigning";
import { whoami } from "./whoami";

/** Every query the service answers: a new query is a file here plus one line (and one in protocol). */
export const queries: { [N in QueryName]: QueryHandler<N> } = {
  whoami,
  get_user: getUser,
  list_wallets: listWallets,
  list_wallet_accounts: listWalletAccounts,
  get_activity: getActivity,
  get_authenticators: getAuthenticators,
  get_api_keys: getApiKeys,
  list_audit_events: listAuditEvents,
  list_users: listUsers,
  list_activities: listActivities,
  get_policy: getPolicy,
  list_policies: listPolicies,
  get_recovery_shares: getRecoveryShares,
  preview_signing: previewSigning,
};
