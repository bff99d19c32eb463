import { z } from "zod";
import { idSchema, orgIdSchema, timestampMsSchema } from "../common";

import { type QueryName, queryTypes } from "./queryTypes";

/** The most security events one `list_audit_events` answers (and its default). */
export const MAX_AUDIT_EVENTS = 100;

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
  /** The user's own security events (sign-ins, method changes, exports), newest first. */
  list_audit_events: z.object({
    ...base,
    type: typed("list_audit_events"),
    userId: idSchema(128),
    limit: z.number().int().min(1).max(MAX_AUDIT_EVENTS).optional(),
  }),
} as const satisfies Record<QueryName, z.ZodType>;
