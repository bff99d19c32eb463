import { type ActivityStatus, type ActivityType, ErrorCode } from "@latchkey/protocol";
import { activityTypes } from "@latchkey/protocol/schemas";
import type { AppAdminKey } from "../../apps/appDirectory";
import type { ActivitiesTable } from "../../db/schema";
import { ApiError, apiError } from "../../errors";
import type { ActivityContext, ActivityHandler, ActivityInput } from "../defineActivity";
import { findSigningAccount } from "../signing";
import { approvalsOf } from "../toActivity";
import { decideSigning } from "./decideSigning";
import { releasePolicyTokens } from "./policyTokenLimits";

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
  const settled = Number(updated.numUpdatedRows) === 1;
  // Never signed: what the policy's token limits counted for it when it was held is given back.
  if (settled && (values.status === "ACTIVITY_STATUS_REJECTED" || values.status === "ACTIVITY_STATUS_FAILED"))
    await releasePolicyTokens(ctx.db, row.id);
  return settled;
}

/**
 * An app admin approves a held signature: the app's current policy is asked again (a rule that now
 * denies it still wins), the activity is claimed (CONSENSUS_NEEDED → PENDING, once), signed, and
 * COMPLETED — or FAILED if the signature cannot be made (e.g. its account is not the user's).
 */
export async function approveHeldActivity(
  ctx: ActivityContext,
  params: {
    admin: ApprovingAdmin;
    ref: HeldActivityRef;
    handlers: Readonly<Partial<Record<ActivityType, ActivityHandler<ActivityType, unknown>>>>;
  },
): Promise<ApprovalOutcome> {
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
    ? (
        await decideSigning(ctx, {
          appId: admin.appId,
          type,
          params: input.params,
          signingRequest: handler.signingRequest(input),
          keepPreview: false,
        })
      ).decision
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
  // `approvals.required` distinct admins release it: each approval is recorded (an admin twice, once).
  const required = (await ctx.apps.signingPolicyOf(admin.appId))?.approvals?.required ?? 1;
  const counted = await countApproval(ctx, row, admin, required);
  if (counted.approved < required) return { activityId: row.id, status: HELD, approvals: counted };
  if (await isSplitSigner(ctx, row.org_id, input.params)) {
    // Split custody (docs/split-custody.md §7): the user's share came with the request and was never
    // kept, so the service alone cannot sign. The approval is recorded; the activity stays held until
    // the user's key holder completes it (complete_activity) with its share, before the approval expires.
    return { ...(await recordApproval(ctx, row, admin)), approvals: counted };
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
    return { activityId: row.id, status: "ACTIVITY_STATUS_FAILED", approvals: counted };
  }
  await settle(ctx, claimed, {
    status: "ACTIVITY_STATUS_COMPLETED",
    result: JSON.stringify({ [entry.result]: result }),
    failure: null,
  });
  await ctx.audit("signing.approved", {
    ...audit,
    details: { activityId: row.id, admin: admin.name, approvals: `${counted.approved} of ${required}` },
  });
  return { activityId: row.id, status: "ACTIVITY_STATUS_COMPLETED", approvals: counted };
}

/** An admin who decides a held signature: an admin key, or a console admin (`consoleAdminId`). */
export type ApprovingAdmin = AppAdminKey & { consoleAdminId?: string | undefined };

/** What an approval answers: the activity's status and, once counted, `approved` of `required`. */
export interface ApprovalOutcome {
  activityId: string;
  status: ActivityStatus;
  approvals?: { approved: number; required: number; duplicate: boolean };
}

/** Who an admin is, for counting approvals: a console admin by id, an admin key by its public key. */
export function adminIdentity(admin: ApprovingAdmin): string {
  return admin.consoleAdminId ? `console:${admin.consoleAdminId}` : `key:${admin.publicKey}`;
}

/**
 * Records an admin's approval of a held signature (activities.approvals), once per admin: approving
 * again counts nothing (`duplicate`). Compare-and-set on the list, so two admins approving at once are
 * both counted, or the later one is asked to try again (409). Each approval is a security-log event.
 */
async function countApproval(
  ctx: Pick<ActivityContext, "db" | "now" | "audit">,
  row: HeldRow,
  admin: ApprovingAdmin,
  required: number,
): Promise<{ approved: number; required: number; duplicate: boolean }> {
  const list = approvalsOf(row);
  const id = adminIdentity(admin);
  const audit = { appId: admin.appId, userId: row.user_id };
  if (list.some((a) => a.id === id)) {
    await ctx.audit("signing.approval_repeated", {
      ...audit,
      details: { activityId: row.id, admin: admin.name, approvals: `${list.length} of ${required}` },
    });
    return { approved: list.length, required, duplicate: true };
  }
  const next = [...list, { id, name: admin.name, at: ctx.now() }];
  let update = ctx.db
    .updateTable("activities")
    .set({ approvals: JSON.stringify(next) })
    .where("id", "=", row.id)
    .where("status", "=", HELD);
  update =
    row.approvals == null
      ? update.where("approvals", "is", null)
      : update.where("approvals", "=", row.approvals);
  const updated = await update.executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw notPending(row.id, "decided by someone else");
  row.approvals = JSON.stringify(next);
  if (next.length < required)
    await ctx.audit("signing.approval_recorded", {
      ...audit,
      details: { activityId: row.id, admin: admin.name, approvals: `${next.length} of ${required}` },
    });
  return { approved: next.length, required, duplicate: false };
}

/** How long the user's device has to complete a split wallet's approved signature (docs/split-custody.md §7). */
export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Records an app admin's approval of a split wallet's held signature: nothing is opened or signed. The
 * activity stays CONSENSUS_NEEDED with `approval` until the user's device completes it. Approving again
 * is refused while the approval lasts (409 ACTIVITY_NOT_PENDING) and renews it once it has expired.
 */
async function recordApproval(
  ctx: Pick<ActivityContext, "db" | "now" | "audit">,
  row: HeldRow,
  admin: ApprovingAdmin,
): Promise<{ activityId: string; status: ActivityStatus }> {
  const now = ctx.now();
  if (row.approved_at != null && Number(row.approval_expires_at) > now) {
    throw apiError(
      ErrorCode.ACTIVITY_NOT_PENDING,
      `Activity ${row.id} is approved already and waits for the user's device to complete it`,
      { data: { activityId: row.id, status: row.status } },
    );
  }
  let update = ctx.db
    .updateTable("activities")
    .set({
      approved_by: admin.name,
      approved_at: now,
      approval_expires_at: now + APPROVAL_TTL_MS,
      updated_at: now,
    })
    .where("id", "=", row.id)
    .where("status", "=", HELD);
  // Compare-and-set on the approval too: two admins approving at once record one approval.
  update =
    row.approved_at == null
      ? update.where("approved_at", "is", null)
      : update.where("approved_at", "=", Number(row.approved_at));
  const updated = await update.executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw notPending(row.id, "decided by someone else");
  await ctx.audit("signing.approved", {
    appId: admin.appId,
    userId: row.user_id,
    details: { activityId: row.id, admin: admin.name, waitsFor: "user" },
  });
  return { activityId: row.id, status: HELD };
}

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
  params: { admin: ApprovingAdmin; ref: HeldActivityRef },
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

/** What a completion made before its transaction: the held row and its result, or that it is done. */
export type PreparedCompletion =
  | { done: true; row: ActivitiesTable }
  | { done: false; row: ActivitiesTable; result: Record<string, unknown> };

const SHARE_CODES = new Set<string>([ErrorCode.USER_SHARE_REQUIRED, ErrorCode.USER_SHARE_INVALID]);

/**
 * `complete_activity`, before its record is written (docs/split-custody.md §7): the caller's own held
 * signature, approved by an app admin, the approval not expired, the app's current policy still not
 * denying it (a deny wins: REJECTED); then signed with the user share the completion carries (sealed to
 * the completion's body), as any split signature. Nothing is written but a refusal's outcome: a deny
 * (REJECTED) or a signature that cannot be made for another reason than the share (FAILED). A share
 * that is missing or does not open leaves the activity held: the user's device may try again.
 * A held activity already COMPLETED answers `done` (a resent completion answers what it recorded).
 */
export async function prepareCompletion(
  ctx: ActivityContext,
  params: {
    caller: ActivityInput<ActivityType>["caller"];
    activityId: string;
    /** The account the completing device named (its key holder chose the share by it); checked below. */
    signWith?: string | undefined;
    share: ActivityInput<ActivityType>["share"];
    handlers: Readonly<Partial<Record<ActivityType, ActivityHandler<ActivityType, unknown>>>>;
  },
): Promise<PreparedCompletion> {
  const { caller } = params;
  const row = await ctx.db
    .selectFrom("activities")
    .selectAll()
    .where("id", "=", params.activityId)
    .where("org_id", "=", caller.user.orgId)
    .where("user_id", "=", caller.user.id)
    .executeTakeFirst();
  if (!row) throw apiError(ErrorCode.ACTIVITY_NOT_FOUND, `No activity ${params.activityId}`);
  if (row.status === "ACTIVITY_STATUS_COMPLETED") return { done: true, row };
  if (row.status !== HELD) throw notPending(row.id, row.status);
  const type = row.type as ActivityType;
  const handler = params.handlers[type];
  const entry = activityTypes[type];
  if (!handler || !("pure" in handler) || !entry) throw notPending(row.id, row.status);
  if (row.approved_at == null || row.approval_expires_at == null)
    throw apiError(ErrorCode.ACTIVITY_NOT_APPROVED, `Activity ${row.id} waits for an app admin's approval`, {
      data: { activityId: row.id, activityStatus: row.status },
    });
  if (Number(row.approval_expires_at) <= ctx.now())
    throw apiError(
      ErrorCode.APPROVAL_EXPIRED,
      `The approval of activity ${row.id} has expired: an app admin may approve it again`,
      { data: { activityId: row.id, activityStatus: row.status } },
    );
  const intent = JSON.parse(row.intent) as Record<string, unknown>;
  const input = {
    caller: { user: caller.user, body: {} },
    params: entry.parameters.parse(intent[entry.intent]),
    share: params.share,
  } as ActivityInput<ActivityType>;
  const heldSignWith = (input.params as { signWith?: unknown }).signWith;
  if (
    params.signWith !== undefined &&
    (typeof heldSignWith !== "string" || !sameAccount(params.signWith, heldSignWith))
  ) {
    throw apiError(
      ErrorCode.INVALID_REQUEST,
      `signWith ${params.signWith} is not the account activity ${row.id} signs with`,
    );
  }
  const audit = { appId: caller.user.appId, userId: row.user_id };
  const decision = handler.signingRequest
    ? (
        await decideSigning(ctx, {
          appId: caller.user.appId,
          type,
          params: input.params,
          signingRequest: handler.signingRequest(input),
          keepPreview: false,
        })
      ).decision
    : { effect: "allow" as const };
  if (decision.effect === "deny") {
    const failure = { code: ErrorCode.POLICY_DENIED, message: decision.message };
    if (!(await settle(ctx, row as HeldRow, { status: "ACTIVITY_STATUS_REJECTED", failure })))
      throw notPending(row.id, "decided by someone else");
    await ctx.audit("signing.rejected", {
      ...audit,
      details: { activityId: row.id, ruleId: decision.ruleId, completion: true },
    });
    throw apiError(failure.code, failure.message, {
      data: { activityId: row.id, activityStatus: "ACTIVITY_STATUS_REJECTED" },
    });
  }
  let result: object;
  try {
    result = await handler.pure(ctx, input);
  } catch (e) {
    if (!(e instanceof ApiError) || SHARE_CODES.has(e.code)) throw e;
    // The held intent cannot be signed at all (not a share problem): it fails, as an admin's approval
    // of a service wallet's signature would.
    const failure = { code: e.code, message: e.message };
    if (await settle(ctx, row as HeldRow, { status: "ACTIVITY_STATUS_FAILED", failure }))
      await ctx.audit("signing.completed", { ...audit, details: { activityId: row.id, failed: e.code } });
    throw e;
  }
  return { done: false, row, result: { [entry.result]: result } };
}

/**
 * `complete_activity`, in its record's transaction: the held activity becomes COMPLETED with the
 * signature, once (compare-and-set on its status and approval): of two completions at the same time, one
 * records the signature and the other answers 409 ACTIVITY_NOT_PENDING with nothing written.
 */
export async function settleCompletion(
  tx: Pick<ActivityContext, "db" | "now" | "audit">,
  params: { prepared: PreparedCompletion; appId: string },
): Promise<{ activityId: string; result: Record<string, unknown> }> {
  const { prepared } = params;
  const { row } = prepared;
  if (prepared.done) throw notPending(row.id, row.status);
  const updated = await tx.db
    .updateTable("activities")
    .set({
      status: "ACTIVITY_STATUS_COMPLETED",
      result: JSON.stringify(prepared.result),
      failure: null,
      updated_at: tx.now(),
    })
    .where("id", "=", row.id)
    .where("status", "=", HELD)
    .where("approved_at", "=", Number(row.approved_at))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw notPending(row.id, "completed by someone else");
  await tx.audit(
    "signing.completed",
    { appId: params.appId, userId: row.user_id, details: { activityId: row.id } },
    tx.db,
  );
  return { activityId: row.id, result: prepared.result };
}

/** EVM addresses compare without case; other accounts (Solana's base58) exactly. */
function sameAccount(a: string, b: string): boolean {
  return a.startsWith("0x") && b.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b;
}
