import type { QueryName } from "@latchkey/protocol";
import type { QueryHandler } from "./defineQuery";
import { getActivity } from "./getActivity";
import { getApiKeys } from "./getApiKeys";
import { getAuthenticators } from "./getAuthenticators";
import { getUser } from "./getUser";
import { listAuditEvents } from "./listAuditEvents";
import { listWalletAccounts } from "./listWalletAccounts";
import { listWallets } from "./listWallets";
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
};
