import { z } from "zod";
import { errorCodeSchema } from "../common";
import type { PublicErrorBody } from "../errors";
import { schemaFor } from "../schemaFor";
import type { Activity, ActivityStatus } from "./activities";
import { signingPreviewSchema } from "./preview";
import type { QueryName } from "./queryTypes";

/**
 * The key-management API's answers as schemas (DESIGN §3.3): each query's answer, a submit's `{activity}`
 * and the error body. They describe the wire for the OpenAPI document (`GET /openapi.json`); the service's
 * query handlers are typed from them.
 */

/** A time as the reference API writes it: seconds and nanos since the epoch, as decimal strings. */
export const wireTimestampSchema = z.object({ seconds: z.string(), nanos: z.string() });

const activityStatuses = [
  "ACTIVITY_STATUS_CREATED",
  "ACTIVITY_STATUS_PENDING",
  "ACTIVITY_STATUS_COMPLETED",
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
] as const satisfies readonly ActivityStatus[];

/** A key-management activity: id, type, status, the intent it was asked for and its result. */
export const activitySchema = schemaFor<Activity>()(
  z.object({
    id: z.string(),
    organizationId: z.string(),
    status: z.enum(activityStatuses),
    type: z.string(),
    /** `{<intent name>: parameters}`, the intent name from `activityTypes`. */
    intent: z.record(z.string(), z.unknown()),
    /** `{<result name>: result}`, the result name from `activityTypes`. */
    result: z.record(z.string(), z.unknown()),
    fingerprint: z.string(),
    createdAt: wireTimestampSchema,
    updatedAt: wireTimestampSchema,
    failure: z.object({ code: z.string(), message: z.string() }).optional(),
    /** Split custody: an app admin's approval of the held signature, waiting for the user's device. */
    approval: z
      .object({ approvedBy: z.string(), approvedAt: wireTimestampSchema, expiresAt: wireTimestampSchema })
      .optional(),
    /** A held signature: what it does, its simulation and the rule that held it, as when it was asked. */
    preview: signingPreviewSchema.optional(),
    /** A held signature: the approvals it needs and who gave them. */
    approvals: z
      .object({
        required: z.number(),
        approvedBy: z.array(z.object({ admin: z.string(), approvedAt: wireTimestampSchema })),
      })
      .optional(),
  }),
);

/** What every `POST /public/v1/submit/*` answers: the activity (a resubmitted body: the first one's). */
export const submitResponseSchema = z.object({ activity: activitySchema });
/** The answer to a submit. */
export type SubmitResponse = z.output<typeof submitResponseSchema>;

/** A passkey as the key-management queries list it. */
export const authenticatorInfoSchema = z.object({
  authenticatorId: z.string(),
  authenticatorName: z.string(),
  credentialId: z.string(),
  transports: z.array(z.string()),
  aaguid: z.string(),
  createdAt: wireTimestampSchema,
  updatedAt: wireTimestampSchema,
});

/** An API key (a session's or a long-lived one) as the key-management queries list it. */
export const apiKeyInfoSchema = z.object({
  apiKeyId: z.string(),
  apiKeyName: z.string(),
  credential: z.object({ publicKey: z.string(), type: z.literal("CREDENTIAL_TYPE_API_KEY_P256") }),
  /** Set when the key expires: its lifetime in seconds, as a decimal string. */
  expirationSeconds: z.string().optional(),
  createdAt: wireTimestampSchema,
});

/** A user as `get_user` and `list_users` describe them. */
const userInfoSchema = z.object({
  userId: z.string(),
  userName: z.string(),
  userEmail: z.string().optional(),
  authenticators: z.array(authenticatorInfoSchema),
  apiKeys: z.array(apiKeyInfoSchema),
  createdAt: wireTimestampSchema,
  updatedAt: wireTimestampSchema,
});

/** A rule of the app's signing policy, as the policy queries describe it. */
export const policyInfoSchema = z.object({
  policyId: z.string(),
  policyName: z.string(),
  /** A rule that holds signatures for an app admin is EFFECT_ALLOW with a `consensus`. */
  effect: z.enum(["EFFECT_ALLOW", "EFFECT_DENY"]),
  /** Set when an app admin must approve what the rule matches. */
  consensus: z.string().optional(),
  /** What the rule matches (chainIds, contracts, selectors, valueAboveWei, ...); empty: everything. */
  condition: z.record(z.string(), z.unknown()),
  notes: z.string(),
});

/** Each query's answer (`POST /public/v1/query/<name>`), by query name. */
export const queryResponseSchemas = {
  whoami: z.object({
    organizationId: z.string(),
    organizationName: z.string(),
    userId: z.string(),
    username: z.string(),
    /** How the user's wallet is kept (split custody: every signature needs the user's share). */
    custody: z.enum(["split", "service"]),
    /**
     * "none": a split user whose wallet is not made yet (create_split_wallet); "whole": a split app's
     * user whose wallet the service still holds whole, until it is split (begin/complete_split_wallet).
     */
    walletState: z.enum(["none", "whole", "ready"]),
    walletId: z.string().optional(),
    /** The recovery factors stored for the user's share (set_recovery_share). */
    recovery: z.array(z.enum(["passkey", "code"])),
  }),
  get_user: z.object({ user: userInfoSchema }),
  list_wallets: z.object({
    wallets: z.array(
      z.object({
        walletId: z.string(),
        walletName: z.string(),
        createdAt: wireTimestampSchema,
        updatedAt: wireTimestampSchema,
        exported: z.boolean(),
        imported: z.boolean(),
      }),
    ),
  }),
  list_wallet_accounts: z.object({
    accounts: z.array(
      z.object({
        walletAccountId: z.string(),
        organizationId: z.string(),
        walletId: z.string(),
        curve: z.enum(["CURVE_SECP256K1", "CURVE_ED25519"]),
        pathFormat: z.literal("PATH_FORMAT_BIP32"),
        path: z.string(),
        addressFormat: z.enum(["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"]),
        address: z.string(),
        publicKey: z.string(),
        createdAt: wireTimestampSchema,
        updatedAt: wireTimestampSchema,
      }),
    ),
  }),
  get_activity: submitResponseSchema,
  get_authenticators: z.object({ authenticators: z.array(authenticatorInfoSchema) }),
  get_api_keys: z.object({ apiKeys: z.array(apiKeyInfoSchema) }),
  list_audit_events: z.object({
    events: z.array(
      z.object({
        eventId: z.string(),
        /** What happened, e.g. `user.signin`, `passkey.added`, `email.changed`, `wallet.exported`. */
        event: z.string(),
        createdAt: wireTimestampSchema,
        /** The address the request came from, when the service knew it. */
        ip: z.string().optional(),
        /** What the service recorded with it (a method, a provider, an address). */
        details: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  }),
  list_users: z.object({ users: z.array(userInfoSchema) }),
  list_activities: z.object({ activities: z.array(activitySchema) }),
  get_policy: z.object({ policy: policyInfoSchema }),
  list_policies: z.object({ policies: z.array(policyInfoSchema) }),
  get_recovery_shares: z.object({
    recoveryShares: z.array(
      z.object({
        walletId: z.string(),
        kind: z.enum(["passkey", "code"]),
        credentialId: z.string().optional(),
        blob: z.object({ v: z.literal(1), salt: z.string(), iv: z.string(), ciphertext: z.string() }),
        createdAt: wireTimestampSchema,
      }),
    ),
  }),
  preview_signing: z.object({ preview: signingPreviewSchema }),
} as const satisfies Record<QueryName, z.ZodType>;
/** The answer to query `N`. */
export type QueryResponse<N extends QueryName> = z.output<(typeof queryResponseSchemas)[N]>;

/** Body of every non-2xx answer of the key-management API: `{code, message, details}`. */
export const publicErrorBodySchema = schemaFor<PublicErrorBody>()(
  z.object({ code: errorCodeSchema, message: z.string(), details: z.array(z.unknown()) }),
);
