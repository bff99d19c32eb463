import { type ActivityStatus, type ActivityType, ErrorCode } from "@latchkey/protocol";
import { activityTypes } from "@latchkey/protocol/schemas";
import type { AppAdminKey } from "../../apps/appDirectory";
import type { ActivitiesTable } from "../../db/schema";
import { ApiError, apiError } from "../../errors";
import type { ActivityContext, ActivityHandler, ActivityInput } from "../defineActivity";
import { findSigningAccount } from "../signing";
import { evaluatePolicy } from "./evaluatePolicy";

const HELD: ActivityStatus = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

/** How an app admin names a held activity: by id or by fingerprint. */
export interface HeldActivityRef {
  activityId?: string | undefined;
  fingerprint?: string | undefined;
}

type HeldRow = ActivitiesTable & { email: string | null };

/** The app's activity `ref` names, waiting for a decision; 404 if it is not the app's, 409 if not held. */
async function findHeld(ctx: Pick<ActivityContext, "db">, admin: AppAdminKey, ref: HeldActivityRef) {
  let query = ctx.db
    .selectFrom("activities")
    .innerJoin("users", "users.id", "activities.user_id")
    .selectAll("activities")
    .select("users.email")
    .where("users.app_id", "=", admin.appId);
  query = ref.activityId
    ? query.where("activities.id", "=", ref.activityId)
    : query.where("activities.fingerprint", "=", ref.fingerprint ?? "");
  const row = (await query.executeTakeFirst()) as HeldRow | undefined;
  if (!row)
    throw apiError(
      ErrorCode.ACTIVITY_NOT_FOUND,
      `No activity ${ref.activityId ?? ref.fingerprint} in this app`,
    );
  if (row.status !== HELD) throw notPending(row.id, row.status);
  return row;
}

function notPending(activityId: string, status: string) {
  return apiError(
    ErrorCode.ACTIVITY_NOT_PENDING,
    `Activity ${activityId} is ${status}, not waiting for approval`,
    {
      data: { activityId, status },
    },
  );
}

/** Moves a held activity on, only if it is still held: two admins (or instances) never both decide it. */
async function settle(
  ctx: Pick<ActivityContext, "db" | "now">,
  row: HeldRow,
  values: { status: ActivityStatus; result?: string; failure?: { code: string; message: string } | null },
): Promise<boolean> {
  const updated = await ctx.db
    .updateTable("activities")
    .set({
      status: values.status,
      ...(values.result !== undefined ? { result: values.result } : {}),
      ...(values.failure !== undefined
        ? { failure: values.failure ? JSON.stringify(values.failure) : null }
        : {}),
      updated_at: ctx.now(),
    })
    .where("id", "=", row.id)
    .where("status", "=", row.status)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * An app admin approves a held signature: the app's current policy is asked again (a rule that now
 * denies it still wins), the activity is claimed (CONSENSUS_NEEDED → PENDING, once), signed, and
 * COMPLETED — or FAILED if the signature cannot be made (e.g. its account is not the user's).
 */
export async function approveHeldActivity(
  ctx: ActivityContext,
  params: {
    admin: AppAdminKey;
    ref: HeldActivityRef;
    handlers: Readonly<Partial<Record<ActivityType, ActivityHandler<ActivityType, unknown>>>>;
  },
): Promise<{ activityId: string; status: ActivityStatus }> {
  const { admin } = params;
  const row = await findHeld(ctx, admin, params.ref);
  const type = row.type as ActivityType;
  const handler = params.handlers[type];
  const entry = activityTypes[type];
  if (!handler || !("pure" in handler) || !entry) throw notPending(row.id, row.status);
  const intent = JSON.parse(row.intent) as Record<string, unknown>;
  const input = {
    caller: { user: { id: row.user_id, orgId: row.org_id, appId: admin.appId, email: row.email }, body: {} },
    params: entry.parameters.parse(intent[entry.intent]),
  } as ActivityInput<ActivityType>;
  const audit = { appId: admin.appId, userId: row.user_id };
  const decision = handler.signingRequest
    ? evaluatePolicy(await ctx.apps.signingPolicyOf(admin.appId), handler.signingRequest(input))
    : { effect: "allow" as const };
  if (decision.effect === "deny") {
    if (
      !(await settle(ctx, row, {
        status: "ACTIVITY_STATUS_REJECTED",
        failure: { code: ErrorCode.POLICY_DENIED, message: decision.message },
      }))
    )
      throw notPending(row.id, "decided by someone else");
    await ctx.audit("signing.rejected", {
      ...audit,
      details: { activityId: row.id, ruleId: decision.ruleId, admin: admin.name },
    });
    return { activityId: row.id, status: "ACTIVITY_STATUS_REJECTED" };
  }
  if (await isSplitSigner(ctx, row.org_id, input.params)) {
    // Split custody (docs/split-custody.md §5): the user's share came with the request and was never
    // kept, so the service alone cannot make the held signature. Not yet supported: FAILED, and said so.
    const failure = { code: ErrorCode.SPLIT_CUSTODY_UNSUPPORTED, message: HELD_SPLIT_MESSAGE };
    if (!(await settle(ctx, row, { status: "ACTIVITY_STATUS_FAILED", failure })))
      throw notPending(row.id, "decided by someone else");
    await ctx.audit("signing.approved", {
      ...audit,
      details: { activityId: row.id, admin: admin.name, failed: failure.code },
    });
    throw apiError(failure.code, failure.message, { data: { activityId: row.id } });
  }
  if (!(await settle(ctx, row, { status: "ACTIVITY_STATUS_PENDING" })))
    throw notPending(row.id, "decided by someone else");
  const claimed = { ...row, status: "ACTIVITY_STATUS_PENDING" };
  let result: object;
  try {
    result = await handler.pure(ctx, input);
  } catch (e) {
    const failure =
      e instanceof ApiError
        ? { code: e.code, message: e.message }
        : { code: ErrorCode.INTERNAL, message: "The signature could not be made" };
    await settle(ctx, claimed, { status: "ACTIVITY_STATUS_FAILED", failure });
    await ctx.audit("signing.approved", {
      ...audit,
      details: { activityId: row.id, admin: admin.name, failed: failure.code },
    });
    return { activityId: row.id, status: "ACTIVITY_STATUS_FAILED" };
  }
  await settle(ctx, claimed, {
    status: "ACTIVITY_STATUS_COMPLETED",
    result: JSON.stringify({ [entry.result]: result }),
    failure: null,
  });
  await ctx.audit("signing.approved", { ...audit, details: { activityId: row.id, admin: admin.name } });
  return { activityId: row.id, status: "ACTIVITY_STATUS_COMPLETED" };
}

/** Why an approved signature of a split wallet fails (until held approvals carry the user's share). */
export const HELD_SPLIT_MESSAGE =
  "Approving a held signature of a split-custody wallet is not supported yet: the service cannot sign without the user's share. Change the rule that held it, and the user must sign again";

/** Whether the held activity signs with an account of a split wallet. */
async function isSplitSigner(ctx: ActivityContext, orgId: string, params: unknown): Promise<boolean> {
  const signWith = (params as { signWith?: unknown }).signWith;
  if (typeof signWith !== "string") return false;
  try {
    return (await findSigningAccount(ctx, { orgId, signWith })).split !== undefined;
  } catch {
    return false;
  }
}

/** The message a user sees for a signature an app admin rejected. */
export const REJECTED_BY_ADMIN_MESSAGE = "An app admin rejected this signature";

/** An app admin rejects a held signature: REJECTED, never signed. */
export async function rejectHeldActivity(
  ctx: ActivityContext,
  params: { admin: AppAdminKey; ref: HeldActivityRef },
): Promise<{ activityId: string; status: ActivityStatus }> {
  const { admin } = params;
  const row = await findHeld(ctx, admin, params.ref);
  const failure = { code: "ACTIVITY_REJECTED", message: REJECTED_BY_ADMIN_MESSAGE };
  if (!(await settle(ctx, row, { status: "ACTIVITY_STATUS_REJECTED", failure })))
    throw notPending(row.id, "decided by someone else");
  await ctx.audit("signing.rejected", {
    appId: admin.appId,
    userId: row.user_id,
    details: { activityId: row.id, admin: admin.name },
  });
  return { activityId: row.id, status: "ACTIVITY_STATUS_REJECTED" };
}
