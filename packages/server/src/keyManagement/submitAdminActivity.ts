import { createHash } from "node:crypto";
import { type ActivityType, ErrorCode } from "@latchkey/protocol";
import { activityTypes, submitEnvelopeSchema } from "@latchkey/protocol/schemas";
import type { AdminCaller } from "../auth/stamps/authenticateAdminStamp";
import type { ActivitiesTable } from "../db/schema";
import { apiError } from "../errors";
import { parseOrThrow } from "../http/parse";
import { activities } from "./activities";
import type { ActivityContext, ActivityHandler, AdminActivityInput } from "./defineActivity";
import { byFingerprint, insertOnce, type SubmitOutcome, type SubmitTarget, servedAt } from "./submitActivity";
import { toActivity } from "./toActivity";

/** The submit paths an app admin key stamps (approve_activity, reject_activity): nothing else. */
export const ADMIN_ACTIVITY_TYPES = (Object.keys(activities) as ActivityType[]).filter(
  (type) => "admin" in activities[type],
);
export const ADMIN_SUBMIT_PATHS: ReadonlySet<string> = new Set(
  ADMIN_ACTIVITY_TYPES.map((type) => activityTypes[type].path),
);

/**
 * Runs an app admin's stamped decision once per body, like submitActivity does a user's: the body's
 * SHA-256 is the fingerprint, and a resubmission answers the activity it recorded. The decision's own
 * record belongs to the app's organisation, made by `admin:<public key>`.
 */
export async function submitAdminActivity(
  ctx: ActivityContext,
  target: SubmitTarget,
  params: { rawBody: string; admin: AdminCaller },
): Promise<SubmitOutcome> {
  const { rawBody, admin } = params;
  const { path, served } = servedAt(target);
  const envelope = parseOrThrow(submitEnvelopeSchema, admin.body, "request");
  const type = envelope.type as ActivityType;
  const handler = activities[type] as ActivityHandler<ActivityType, unknown> | undefined;
  if (!served.includes(type) || !handler || !("admin" in handler)) {
    throw apiError(ErrorCode.UNSUPPORTED_ACTIVITY, `Activity type ${envelope.type} is not served at ${path}`);
  }
  const entry = activityTypes[type];
  const activityParams = parseOrThrow(entry.parameters, envelope.parameters, "parameters");
  const fingerprint = createHash("sha256").update(rawBody).digest("hex");
  const before = await ctx.db
    .selectFrom("activities")
    .select("id")
    .where("fingerprint", "=", fingerprint)
    .executeTakeFirst();
  if (before) return { activity: toActivity(await byFingerprint(ctx.db, fingerprint)), replayed: true };
  const input = { admin, params: activityParams, handlers: activities } as AdminActivityInput<ActivityType>;
  const result = await handler.admin(ctx, input);
  const now = ctx.now();
  const row: ActivitiesTable = {
    id: ctx.random.uuid(),
    org_id: admin.key.orgId,
    user_id: `admin:${admin.key.publicKey}`,
    type,
    fingerprint,
    status: "ACTIVITY_STATUS_COMPLETED",
    intent: JSON.stringify({ [entry.intent]: activityParams }),
    result: JSON.stringify({ [entry.result]: result }),
    failure: null,
    created_at: now,
    updated_at: now,
  };
  return insertOnce(ctx, row);
}
