import { z } from "zod";
import { idSchema, orgIdSchema, timestampMsSchema } from "../common";

import { previewSigningQueryFields } from "./preview";
import { type QueryName, queryTypes } from "./queryTypes";

/** The most security events one `list_audit_events` answers (and its default). */
export const MAX_AUDIT_EVENTS = 100;
/** The most activities one `list_activities` page holds (and its default). */
export const MAX_ACTIVITIES_PAGE = 100;

const activityStatusFilter = z
  .array(
    z.enum([
      "ACTIVITY_STATUS_CREATED",
      "ACTIVITY_STATUS_PENDING",
      "ACTIVITY_STATUS_COMPLETED",
      "ACTIVITY_STATUS_FAILED",
      "ACTIVITY_STATUS_REJECTED",
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    ]),
  )
  .max(6);

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
  /** The organisation's users: a user's organisation holds that user alone. */
  list_users: z.object({ ...base, type: typed("list_users") }),
  /**
   * The organisation's activities, newest first. `paginationOptions.before` / `after` name an activity
   * id: the page holds the activities older (before) or newer (after) than it.
   */
  list_activities: z.object({
    ...base,
    type: typed("list_activities"),
    filterByStatus: activityStatusFilter.optional(),
    filterByType: z.array(z.string().min(1).max(100)).max(20).optional(),
    paginationOptions: z
      .object({
        limit: z
          .string()
          .regex(/^\d{1,3}$/, "limit is a decimal string")
          .refine(
            (v) => Number(v) >= 1 && Number(v) <= MAX_ACTIVITIES_PAGE,
            `limit is 1-${MAX_ACTIVITIES_PAGE}`,
          )
          .optional(),
        before: idSchema(128).optional(),
        after: idSchema(128).optional(),
      })
      .optional(),
  }),
  /** One rule of the app's signing policy, by id. */
  get_policy: z.object({ ...base, type: typed("get_policy"), policyId: idSchema(128) }),
  /** The rules of the app's signing policy, in the order they are asked. */
  list_policies: z.object({ ...base, type: typed("list_policies") }),
  /** Split custody: the user's recovery blobs (set_recovery_share), to restore the share on a new device. */
  get_recovery_shares: z.object({ ...base, type: typed("get_recovery_shares") }),
  /**
   * What a signature would do (preview.ts): decoded, simulated on the chain and asked of the app's
   * policy, for the user's own account. Signs nothing and records nothing.
   */
  preview_signing: z.object({ ...previewSigningQueryFields, type: typed("preview_signing") }),
} as const satisfies Record<QueryName, z.ZodType>;
