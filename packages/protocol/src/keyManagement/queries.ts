import { z } from "zod";
import { idSchema, orgIdSchema, timestampMsSchema } from "../common";

import { type QueryName, queryTypes } from "./queryTypes";

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
