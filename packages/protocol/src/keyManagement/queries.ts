import { z } from "zod";
import { idSchema, orgIdSchema, timestampMsSchema } from "../common";

/**
 * Key-management queries (`POST /public/v1/query/*`, DESIGN §3.3). A query body may name itself in
 * `type` (Latchkey's client always does): a body that names another operation is refused, so a signed
 * submit can never be replayed as a read, nor one read as another.
 */
export const queryTypes = {
  whoami: "QUERY_TYPE_WHOAMI",
  get_user: "QUERY_TYPE_GET_USER",
  list_wallets: "QUERY_TYPE_LIST_WALLETS",
  list_wallet_accounts: "QUERY_TYPE_LIST_WALLET_ACCOUNTS",
  get_activity: "QUERY_TYPE_GET_ACTIVITY",
  get_authenticators: "QUERY_TYPE_GET_AUTHENTICATORS",
  get_api_keys: "QUERY_TYPE_GET_API_KEYS",
} as const;
export type QueryName = keyof typeof queryTypes;

const base = { organizationId: orgIdSchema, timestampMs: timestampMsSchema.optional() };
const typed = <N extends QueryName>(name: N) => z.literal(queryTypes[name]).optional();

export const querySchemas = {
  whoami: z.object({ ...base, type: typed("whoami") }),
  get_user: z.object({ ...base, type: typed("get_user"), userId: idSchema(128) }),
  list_wallets: z.object({ ...base, type: typed("list_wallets") }),
  list_wallet_accounts: z.object({ ...base, type: typed("list_wallet_accounts"), walletId: idSchema(128) }),
  get_activity: z.object({ ...base, type: typed("get_activity"), activityId: idSchema(128) }),
  get_authenticators: z.object({ ...base, type: typed("get_authenticators"), userId: idSchema(128) }),
  get_api_keys: z.object({ ...base, type: typed("get_api_keys"), userId: idSchema(128).optional() }),
} as const satisfies Record<QueryName, z.ZodType>;
