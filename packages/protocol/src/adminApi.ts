import { z } from "zod";
import { previewLocaleSchema, signingPreviewSchema } from "./keyManagement/preview";
import { stampedEndpoint } from "./stampedEndpoint";

/**
 * The admin API (`POST /admin/v1/*`): what an app's admin keys (its signing policy's `adminKeys`, P-256)
 * may ask about and do to the app's users, activities, sponsorship and webhooks. Every body is stamped
 * (`X-Stamp` over the exact bytes) and carries `type` (the endpoint's, `ADMIN_<NAME>`), `organizationId`
 * (the app's organisation) and `timestampMs` (within the stamp window); each body is used once.
 */
const endpoint = stampedEndpoint("ADMIN", "/admin/v1", { organizationId: z.string().min(1).max(100) });

const id = z.string().min(1).max(200);
const limit = z.number().int().min(1).max(200).optional();
const cursor = z.string().min(1).max(300).optional();
const ms = z.number().int().min(0).max(8_640_000_000_000_000).optional();
const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

const userSummary = z.object({
  userId: z.string(),
  organizationId: z.string(),
  email: z.string().nullable(),
  createdAt: z.number(),
  disabledAt: z.number().nullable(),
});

const activityRow = z.object({
  activityId: z.string(),
  userId: z.string(),
  organizationId: z.string(),
  type: z.string(),
  status: z.string(),
  fingerprint: z.string(),
  failure: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /**
   * Split custody (docs/split-custody.md §7): a held signature an admin approved, waiting for the
   * user's device to complete it before `expiresAt` (milliseconds).
   */
  approval: z.object({ approvedBy: z.string(), approvedAt: z.number(), expiresAt: z.number() }).optional(),
  /**
   * A signature the app's policy held: what it does (the decoded summary, in the `locale` asked), its
   * simulation and the rule that held it, as read when it was asked.
   */
  preview: signingPreviewSchema.optional(),
  /**
   * A held signature: the approvals it needs (`approvals.required` in the app's signing policy) and the
   * admins who gave them, each once (milliseconds).
   */
  approvals: z
    .object({
      required: z.number(),
      approvedBy: z.array(z.object({ admin: z.string(), approvedAt: z.number() })),
    })
    .optional(),
});

const auditEvent = z.object({
  eventId: z.string(),
  userId: z.string().nullable(),
  event: z.string(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.number(),
});

/**
 * A decision's outcome: the activity's status after it and, for an approval, how many of the approvals
 * it needs it has (`approved` of `required`; an admin who approved already is counted once: `duplicate`).
 */
const decision = z.object({
  activityId: z.string(),
  status: z.string(),
  approvals: z.object({ approved: z.number(), required: z.number(), duplicate: z.boolean() }).optional(),
});

const webhookDelivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  endpointId: z.string(),
  url: z.string(),
  status: z.string(),
  attempts: z.number(),
  nextAttemptAt: z.number().nullable(),
  lastStatusCode: z.number().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.number().nullable(),
  createdAt: z.number(),
});

/** Every admin API endpoint: its path, the `type` its bodies carry, its request and its answer. */
export const adminApi = {
  search_users: endpoint(
    "search_users",
    "/users/search",
    "The app's users, newest first, a page at a time; or the one with this email (any case), address " +
      "(EVM or Solana) or user id.",
    {
      email: z.string().min(1).max(320).optional(),
      address: z.string().min(1).max(100).optional(),
      userId: id.optional(),
      limit,
      cursor,
    },
    page(userSummary),
  ),
  get_user: endpoint(
    "get_user",
    "/users/get",
    "One user: sign-in methods, wallets and addresses, live sessions, second factors, recent activities " +
      "and security events.",
    { userId: id },
    z.object({
      user: userSummary,
      signInMethods: z.object({
        email: z.string().nullable(),
        passkeys: z.array(z.object({ id: z.string(), name: z.string(), createdAt: z.number() })),
        oauth: z.array(
          z.object({ provider: z.string(), email: z.string().nullable(), createdAt: z.number() }),
        ),
      }),
      wallets: z.array(
        z.object({
          walletId: z.string(),
          name: z.string(),
          accounts: z.array(z.object({ address: z.string(), addressFormat: z.string(), path: z.string() })),
        }),
      ),
      sessions: z.array(
        z.object({
          sessionId: z.string(),
          kind: z.string(),
          signedInBy: z.string().nullable(),
          createdAt: z.number(),
          expiresAt: z.number().nullable(),
        }),
      ),
      secondFactors: z.array(
        z.object({ id: z.string(), type: z.string(), verified: z.boolean(), createdAt: z.number() }),
      ),
      recentActivities: z.array(activityRow),
      securityEvents: z.array(auditEvent),
    }),
  ),
  revoke_sessions: endpoint(
    "revoke_sessions",
    "/users/revoke_sessions",
    "Revokes one session of the user (`sessionId`), or all of them: their next stamp fails at once.",
    { userId: id, sessionId: id.optional() },
    z.object({ revoked: z.number() }),
  ),
  disable_user: endpoint(
    "disable_user",
    "/users/disable",
    "Disables the user: no sign-in, no signature (USER_DISABLED) until enabled.",
    { userId: id },
    z.object({ user: userSummary }),
  ),
  enable_user: endpoint(
    "enable_user",
    "/users/enable",
    "Enables a disabled user again.",
    { userId: id },
    z.object({ user: userSummary }),
  ),
  list_activities: endpoint(
    "list_activities",
    "/activities/list",
    "The app's activities, newest first, filtered by status, type, user and time (`from` ≤ createdAt < `to`).",
    {
      status: z.string().min(1).max(64).optional(),
      activityType: z.string().min(1).max(100).optional(),
      userId: id.optional(),
      from: ms,
      to: ms,
      limit,
      cursor,
      /** The language of a held activity's summary (default en). */
      locale: previewLocaleSchema.optional(),
    },
    page(activityRow),
  ),
  approve_activity: endpoint(
    "approve_activity",
    "/activities/approve",
    "Approves a held activity: the signing policy is asked again; once `approvals.required` distinct " +
      "admins approved, it is signed (COMPLETED). An admin approving twice is counted once.",
    { activityId: id },
    decision,
  ),
  reject_activity: endpoint(
    "reject_activity",
    "/activities/reject",
    "Rejects a held activity: REJECTED, never signed.",
    { activityId: id },
    decision,
  ),
  sponsorship_spend: endpoint(
    "sponsorship_spend",
    "/sponsorship/spend",
    "Sponsorship spend per policy per UTC day (`fromDay` ≤ day ≤ `toDay`, YYYY-MM-DD): EVM operations and " +
      "reserved wei; Solana transactions and fee lamports.",
    {
      fromDay: z.iso.date().optional(),
      toDay: z.iso.date().optional(),
      policyId: z.string().min(1).max(100).optional(),
    },
    z.object({
      days: z.array(
        z.object({
          day: z.string(),
          policyId: z.string(),
          chain: z.enum(["evm", "solana"]),
          operations: z.number(),
          wei: z.string().optional(),
          feeLamports: z.string().optional(),
          lamports: z.string().optional(),
        }),
      ),
    }),
  ),
  list_audit_events: endpoint(
    "list_audit_events",
    "/audit/list",
    "The app's security log, newest first, filtered by user, event and time.",
    { userId: id.optional(), event: z.string().min(1).max(100).optional(), from: ms, to: ms, limit, cursor },
    page(auditEvent),
  ),
  list_webhook_deliveries: endpoint(
    "list_webhook_deliveries",
    "/webhooks/deliveries",
    "The app's webhook deliveries, newest first.",
    {
      status: z.enum(["pending", "delivered", "failed"]).optional(),
      eventType: z.string().min(1).max(100).optional(),
      eventId: id.optional(),
      endpointId: id.optional(),
      limit,
      cursor,
    },
    page(webhookDelivery),
  ),
  list_webhook_attempts: endpoint(
    "list_webhook_attempts",
    "/webhooks/attempts",
    "Every attempt of one delivery, oldest first.",
    { deliveryId: id },
    z.object({
      attempts: z.array(
        z.object({
          attempt: z.number(),
          startedAt: z.number(),
          durationMs: z.number(),
          statusCode: z.number().nullable(),
          error: z.string().nullable(),
        }),
      ),
    }),
  ),
  redeliver_webhook: endpoint(
    "redeliver_webhook",
    "/webhooks/redeliver",
    "Sends a delivery again now, with the same `webhook-id`.",
    { deliveryId: id },
    z.object({ redelivered: z.literal(true) }),
  ),
  daily_stats: endpoint(
    "daily_stats",
    "/stats/daily",
    "Per UTC day (`fromDay` ≤ day ≤ `toDay`, YYYY-MM-DD, at most 366 days; default the last 30): sign-ups, " +
      "active users (signed in or had a signature made), signatures made, and failed sign-ins (wrong codes, " +
      "failed social sign-ins). Every day of the range is listed, oldest first.",
    { fromDay: z.iso.date().optional(), toDay: z.iso.date().optional() },
    z.object({
      days: z.array(
        z.object({
          day: z.string(),
          signUps: z.number(),
          activeUsers: z.number(),
          signatures: z.number(),
          failedSignIns: z.number(),
        }),
      ),
    }),
  ),
  get_app: endpoint(
    "get_app",
    "/app/get",
    "The app's configuration as the service holds it (no secret: client secrets, webhook secrets and API " +
      "keys are only said to exist), and who is asking.",
    {},
    z.object({
      admin: z.object({ name: z.string(), via: z.enum(["adminKey", "console"]) }),
      app: z.object({
        id: z.string(),
        name: z.string(),
        organizationId: z.string(),
        emailMode: z.string(),
        locale: z.string(),
        /** How the app's new users' wallets are kept: "service" or "split" (docs/split-custody.md). */
        custody: z.enum(["service", "split"]),
        allowedOrigins: z.array(z.string()),
        magicLinkRedirectUrls: z.array(z.string()),
        oauthRedirectUrls: z.array(z.string()),
        webauthn: z.object({ rpId: z.string(), origins: z.array(z.string()) }),
        oauthProviders: z.array(
          z.object({
            id: z.string(),
            displayName: z.string(),
            issuer: z.string(),
            clientId: z.string(),
            scopes: z.array(z.string()),
            hasClientSecret: z.boolean(),
          }),
        ),
        jwt: z
          .object({ issuer: z.string(), jwksUrl: z.string(), audience: z.string().optional() })
          .nullable(),
        apiKeys: z.array(
          z.object({ prefix: z.string(), createdAt: z.number(), revokedAt: z.number().nullable() }),
        ),
        sponsorship: z.object({
          policies: z.array(z.record(z.string(), z.unknown())),
          solanaPolicies: z.array(z.record(z.string(), z.unknown())),
        }),
        signingPolicy: z.record(z.string(), z.unknown()).nullable(),
        webhooks: z.array(
          z.object({
            endpointId: z.string(),
            url: z.string(),
            events: z.array(z.string()),
            createdAt: z.number(),
          }),
        ),
      }),
    }),
  ),
  sign_out: endpoint(
    "sign_out",
    "/console/sign_out",
    "Ends the console session whose key stamps this request (an admin key has no session: false).",
    {},
    z.object({ signedOut: z.boolean() }),
  ),
  pregenerate_user: endpoint(
    "pregenerate_user",
    "/users/pregenerate",
    "Creates a user and their wallet for an email (or a custom `externalId`, or both) before the person " +
      "ever signs in, and answers the addresses; the first sign-in with that email claims the user. Asked " +
      "again for the same email or `externalId`, it answers the same user (`created: false`).",
    {
      email: z.email().max(254).optional(),
      externalId: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[\x21-\x7e]+$/, "externalId is printable ASCII without spaces")
        .optional(),
    },
    z.object({
      user: userSummary,
      externalId: z.string().nullable(),
      created: z.boolean(),
      /** When the person first signed in (claimed the user); null until then. */
      claimedAt: z.number().nullable(),
      walletId: z.string(),
      address: z.string(),
      solanaAddress: z.string(),
    }),
  ),
} as const;

export type AdminEndpointName = keyof typeof adminApi;
export type AdminEndpoint = (typeof adminApi)[AdminEndpointName];
export type AdminRequest<N extends AdminEndpointName> = z.output<(typeof adminApi)[N]["request"]>;
export type AdminResponse<N extends AdminEndpointName> = z.input<(typeof adminApi)[N]["response"]>;
