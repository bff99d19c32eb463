import { createHash } from "node:crypto";
import { type Activity, type ActivityType, ErrorCode, type StampedBinding } from "@latchkey/protocol";
import { activityTypes, submitEnvelopeSchema, submitPathActivityTypes } from "@latchkey/protocol/schemas";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import { prepared, rowSlots } from "../db/prepared";
import type { ActivitiesTable } from "../db/schema";
import { ApiError, apiError } from "../errors";
import { parseOrThrow } from "../http/parse";
import { auditSummary } from "../simulation/preview";
import { activities } from "./activities";
import { auditCompletedSignature } from "./confirmation/auditSignature";
import { requireConfirmation } from "./confirmation/requireConfirmation";
import type { ActivityContext, ActivityHandler, ActivityInput } from "./defineActivity";
import { decideSigning } from "./policies/decideSigning";
import { countPolicyTokens, type PolicyTokenReservation } from "./policies/policyTokenLimits";
import { findSigningAccount } from "./signing";
import { toActivity } from "./toActivity";

export interface SubmitOutcome {
  activity: Activity;
  /** True when the same body was already executed and this is its stored outcome. */
  replayed: boolean;
}

const SUBMIT_PREFIX = "/public/v1/submit/";

/** The key-management submit a body was sent to: a signer route's stamped binding, or the path itself. */
export type SubmitTarget = Pick<StampedBinding, "url">;

/**
 * Runs a stamped submit request at most once per body: the body's SHA-256 is the activity's fingerprint,
 * so a resubmission (direct or wrapped) answers with the activity it created the first time.
 *
 * @example
 * const { activity } = await submitActivity(ctx, signerApi.signPayload.stamped, { rawBody, caller });
 */
export async function submitActivity(
  ctx: ActivityContext,
  target: SubmitTarget,
  params: {
    rawBody: string;
    caller: StampedCaller;
    userShare?: string | undefined;
    /** The auth frame's confirmation of this body (`X-Confirmation`; keyManagement/confirmation). */
    confirmation?: string | undefined;
  },
): Promise<SubmitOutcome> {
  const { rawBody, caller } = params;
  const { path, served } = servedAt(target);
  const envelope = parseOrThrow(submitEnvelopeSchema, caller.body, "request");
  const type = envelope.type as ActivityType;
  if (!served.includes(type)) {
    throw apiError(ErrorCode.UNSUPPORTED_ACTIVITY, `Activity type ${envelope.type} is not served at ${path}`);
  }
  const entry = activityTypes[type];
  const handler = activities[type] as ActivityHandler<ActivityType, unknown>;
  // Approvals are an app admin's (submitAdminActivity.ts): a user's session never reaches them.
  if ("admin" in handler) {
    throw apiError(ErrorCode.FORBIDDEN, "Only an app admin key may approve or reject activities");
  }
  const activityParams = parseOrThrow(entry.parameters, envelope.parameters, "parameters");
  // A session acts for its own user only: every activity naming a userId is checked here, once.
  const userId = (activityParams as { userId?: string }).userId;
  if (userId && userId !== caller.user.id) {
    throw apiError(ErrorCode.FORBIDDEN, "A session may only act for its own user");
  }
  const input = {
    caller,
    params: activityParams,
    share: { sealed: params.userShare, body: rawBody },
  } as ActivityInput<ActivityType>;

  // No lookup first: the insert's conflict on the fingerprint finds a resubmission (one query, not two).
  const now = ctx.now();
  const row: ActivitiesTable = {
    id: ctx.random.uuid(),
    org_id: caller.user.orgId,
    user_id: caller.user.id,
    type,
    fingerprint: createHash("sha256").update(rawBody).digest("hex"),
    status: "ACTIVITY_STATUS_COMPLETED",
    intent: JSON.stringify({ [entry.intent]: withoutProofs(activityParams) }),
    result: "{}",
    failure: null,
    created_at: now,
    updated_at: now,
  };

  if ("pure" in handler) {
    let confirmedInFrame = false;
    const signingRequest = handler.signingRequest?.(input);
    // The app's signing policy decides first: a refused or held signature is recorded without a result.
    let tokens: PolicyTokenReservation | null = null;
    if (signingRequest) {
      // Before anything else: a signature the user must confirm in the auth frame carries its confirmation.
      confirmedInFrame = await requireConfirmation(ctx, {
        caller,
        signingRequest,
        rawBody,
        confirmation: params.confirmation,
      });
      const decided = await decideSigning(ctx, {
        appId: caller.user.appId,
        type,
        params: activityParams,
        signingRequest,
      });
      const { preview } = decided;
      let { decision } = decided;
      // The policy's limits in tokens, per user (policyTokenLimits.ts): counted for what is signed or held.
      if (decision.effect !== "deny") {
        const counted = await countPolicyTokens(ctx, {
          appId: caller.user.appId,
          orgId: caller.user.orgId,
          policy: await ctx.apps.signingPolicyOf(caller.user.appId),
          request: signingRequest,
          fingerprint: row.fingerprint,
        });
        if ("decision" in counted) decision = counted.decision;
        else tokens = counted.reservation;
      }
      if (decision.effect !== "allow") {
        const refused = decision.effect === "deny";
        // What waits for an admin must be signable then: the account is the user's.
        const signWith = (activityParams as { signWith?: string }).signWith;
        if (!refused && signWith) await findSigningAccount(ctx, { orgId: caller.user.orgId, signWith });
        row.status = refused ? "ACTIVITY_STATUS_REJECTED" : "ACTIVITY_STATUS_CONSENSUS_NEEDED";
        row.failure = JSON.stringify({
          code: refused ? ErrorCode.POLICY_DENIED : ErrorCode.ACTIVITY_CONSENSUS_NEEDED,
          message: decision.message,
        });
        // What the app's admins read of a held signature: its summary, simulation and the rule.
        if (!refused && preview) row.preview = JSON.stringify(preview);
        const outcome = await insertOnce(ctx, row);
        if (!outcome.replayed && row.preview)
          await ctx.db
            .updateTable("activities")
            .set({ preview: row.preview })
            .where("id", "=", row.id)
            .execute();
        if (!outcome.replayed)
          await ctx.audit(refused ? "signing.rejected" : "signing.held", {
            appId: caller.user.appId,
            userId: caller.user.id,
            details: {
              activityId: row.id,
              type,
              ruleId: decision.ruleId,
              ...(preview ? { summary: auditSummary(preview) } : {}),
            },
          });
        return outcome;
      }
    }
    let result: object;
    try {
      result = await handler.pure(ctx, input);
    } catch (e) {
      // Nothing was signed: what the policy's token limits counted for it is given back.
      await tokens?.release();
      if (!isShareRefusal(e)) throw e;
      return failedForShare(ctx, row, e);
    }
    row.result = JSON.stringify({ [entry.result]: result });
    const outcome = await insertOnce(ctx, row);
    // A signature made: in the security log with what it does (issue 46).
    if (signingRequest && !outcome.replayed)
      await auditCompletedSignature(ctx, {
        caller,
        type,
        parameters: activityParams,
        signingRequest,
        activityId: row.id,
        confirmedInFrame,
      });
    return outcome;
  }

  if (!("run" in handler))
    throw apiError(ErrorCode.UNSUPPORTED_ACTIVITY, `Activity type ${type} is not served here`);
  const prepared = handler.prepare ? await handler.prepare(ctx, input) : undefined;
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const [inserted] = await insertActivityOnce(trx, { ...row, status: "ACTIVITY_STATUS_PENDING" });
    if (!inserted) return { activity: toActivity(await byFingerprint(trx, row.fingerprint)), replayed: true };
    const result = await handler.run({ ...ctx, db: trx }, { ...input, prepared });
    row.result = JSON.stringify({ [entry.result]: result });
    await completeActivityRow(trx, { status: row.status, result: row.result, updated_at: now, id: row.id });
    return { activity: toActivity(row), replayed: false };
  });
  if (!outcome.replayed) handler.afterCommit?.(ctx, input);
  return outcome;
}

const SHARE_CODES = new Set<string>([ErrorCode.USER_SHARE_REQUIRED, ErrorCode.USER_SHARE_INVALID]);

function isShareRefusal(e: unknown): e is ApiError {
  return e instanceof ApiError && SHARE_CODES.has(e.code);
}

/**
 * A split wallet's signature refused for its user share (missing, or not this body's, or not this key's):
 * nothing was signed; the activity is recorded FAILED with the code, and the request answers that 4xx
 * (with `data.activityId`). A resubmitted body answers what it recorded the first time.
 */
async function failedForShare(
  ctx: ActivityContext,
  row: ActivitiesTable,
  e: ApiError,
): Promise<SubmitOutcome> {
  row.status = "ACTIVITY_STATUS_FAILED";
  row.failure = JSON.stringify({ code: e.code, message: e.message });
  const outcome = await insertOnce(ctx, row);
  const failure = outcome.activity.failure;
  if (outcome.activity.status === "ACTIVITY_STATUS_FAILED" && failure && SHARE_CODES.has(failure.code)) {
    throw apiError(failure.code as ErrorCode, failure.message, { data: { activityId: outcome.activity.id } });
  }
  return outcome;
}

/** The submit path a target names, and the activity types served there (404 for an unknown path). */
export function servedAt(target: SubmitTarget): { path: string; served: readonly ActivityType[] } {
  const path = target.url.startsWith(SUBMIT_PREFIX) ? target.url.slice(SUBMIT_PREFIX.length) : target.url;
  const served = Object.hasOwn(submitPathActivityTypes, path) ? submitPathActivityTypes[path] : undefined;
  if (!served) throw apiError(ErrorCode.NOT_FOUND, `Unknown submit endpoint ${path}`);
  return { path, served };
}

export async function byFingerprint(db: ActivityContext["db"], fingerprint: string) {
  return db
    .selectFrom("activities")
    .selectAll()
    .where("fingerprint", "=", fingerprint)
    .executeTakeFirstOrThrow();
}

const ACTIVITY_COLUMNS = [
  "id",
  "org_id",
  "user_id",
  "type",
  "fingerprint",
  "status",
  "intent",
  "result",
  "failure",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof ActivitiesTable)[];

// Every signature inserts one: compiled once (db/prepared.ts).
const insertActivityOnce = prepared((db, $) =>
  db
    .insertInto("activities")
    .values(rowSlots($, ACTIVITY_COLUMNS))
    .onConflict((oc) => oc.column("fingerprint").doNothing())
    .returning("id"),
);

// A `run` activity (a wallet made, imported, exported…) is recorded PENDING, then completed in the same
// transaction: both compiled once.
const completeActivityRow = prepared((db, $) =>
  db
    .updateTable("activities")
    .set({ status: $("status"), result: $("result"), updated_at: $("updated_at") })
    .where("id", "=", $("id")),
);

export async function insertOnce(ctx: ActivityContext, row: ActivitiesTable): Promise<SubmitOutcome> {
  const [inserted] = await insertActivityOnce(ctx.db, { ...row });
  if (inserted) return { activity: toActivity(row), replayed: false };
  return { activity: toActivity(await byFingerprint(ctx.db, row.fingerprint)), replayed: true };
}

/**
 * The parameters as the activity record keeps them: proofs of a fresh sign-in (an email verification
 * token, an authenticator-app code) are spent by the request and not worth keeping, so they are
 * redacted, as a credential should never sit in a log.
 */
function withoutProofs(params: object): object {
  const { verificationToken, currentEmailVerificationToken, multiFactor, serviceShare, blob, ...rest } =
    params as {
      verificationToken?: string;
      currentEmailVerificationToken?: string;
      multiFactor?: { multiFactorId: string; multiFactorCode: string };
      serviceShare?: string;
      blob?: unknown;
    };
  return {
    ...rest,
    // Split custody: a share (even sealed) and a recovery blob are never kept in an activity's record.
    ...(serviceShare === undefined ? {} : { serviceShare: "[redacted]" }),
    ...(blob === undefined ? {} : { blob: "[redacted]" }),
    ...(verificationToken === undefined ? {} : { verificationToken: "[redacted]" }),
    ...(currentEmailVerificationToken === undefined ? {} : { currentEmailVerificationToken: "[redacted]" }),
    ...(multiFactor === undefined ? {} : { multiFactor: { ...multiFactor, multiFactorCode: "[redacted]" } }),
  };
}
