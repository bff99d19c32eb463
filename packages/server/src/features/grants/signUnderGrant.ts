import { createHash } from "node:crypto";
import { type ActivityType, ErrorCode, type GrantPermissions } from "@latchkey/protocol";
import { activityTypes } from "@latchkey/protocol/schemas";
import type { ServiceContext } from "../../context";
import { destroyGrantShare } from "../../custody/grantShares";
import type { ActivitiesTable } from "../../db/schema";
import { apiError } from "../../errors";
import { signedBy } from "../../keyManagement/policies/callsOf";
import {
  DEFAULT_RULE_ID,
  evaluatePolicy,
  OWN_ACCOUNT_CALLS_RULE_ID,
  type SigningRequest,
} from "../../keyManagement/policies/evaluatePolicy";
import { countPolicyTokens } from "../../keyManagement/policies/policyTokenLimits";
import { withSigningKey } from "../../keyManagement/signing";
import { userAddresses } from "../../users/userStore";
import { chainOf, decideUnderGrant, GRANT_RULES, nativeValueOf } from "./grantPolicy";
import {
  assertRoom,
  assertUsable,
  grantShare,
  loadGrant,
  releaseUse,
  reserveUse,
  statusOf,
} from "./grantStore";
import type { AppServerKey } from "./serverKeys";
import { type TokenSpend, tokenSpendsOf } from "./tokenLimits";

export type GrantContext = Pick<
  ServiceContext,
  "db" | "now" | "random" | "audit" | "apps" | "keyring" | "caches" | "serviceKeys"
>;

/** One signature asked for under a grant: for whom, what the policies read, and how it is made. */
export interface GrantSignatureRequest<T> {
  serverKey: AppServerKey;
  grantId: string;
  userId: string;
  /** The backend's signed body: the activity's fingerprint (each body is used once). */
  raw: string;
  /** The activity it is recorded as, and the parameters its intent keeps. */
  activityType: Extract<
    ActivityType,
    "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" | "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
  >;
  intent: Record<string, unknown>;
  /** What the grant and the app's signing policy read of it. */
  request: SigningRequest;
  /** Makes the signature with the user's EVM key; its answer is the activity's result. */
  sign: (privateKey: Uint8Array) => T;
  result: (signed: T) => object;
}

export interface GrantSignature<T> {
  signed: T;
  activityId: string;
  /** The user's EVM address that signed. */
  address: string;
}

/** A signature the grant and the app's policy allow: who signs, and its activity as it will be recorded. */
export interface AllowedSignature {
  grantId: string;
  userId: string;
  orgId: string;
  /** The user's EVM address that signs. */
  address: string;
  /** What the grant and the app's policy read, as `address` signs it. */
  request: SigningRequest;
  /** The activity row (COMPLETED, naming the grant), to insert once signed. */
  row: ActivitiesTable;
  /** What `grant.used` and `signing.rejected` say of it. */
  details: Record<string, unknown>;
  /** What it moves of the grant's limited tokens (tokenLimits.ts), counted when it is made. */
  tokens: TokenSpend[];
}

/**
 * Steps 1–3 of `signUnderGrant`, recording a refusal but counting nothing: what a user operation checks
 * before it is built and sponsored, and what every signature checks first.
 */
export async function allowUnderGrant(
  ctx: GrantContext,
  req: Omit<GrantSignatureRequest<unknown>, "sign" | "result">,
): Promise<AllowedSignature> {
  const { serverKey } = req;
  // 1.
  const grant = await loadGrant(ctx, { appId: serverKey.appId, grantId: req.grantId });
  if (grant.user_id !== req.userId)
    throw apiError(ErrorCode.GRANT_USER_MISMATCH, `Grant ${req.grantId} is not user ${req.userId}'s`);
  const user = await ctx.db
    .selectFrom("users")
    .select(["id", "org_id", "disabled_at"])
    .where("id", "=", grant.user_id)
    .executeTakeFirstOrThrow();
  if (user.disabled_at !== null && user.disabled_at !== undefined)
    throw apiError(ErrorCode.USER_DISABLED, "This user is disabled");
  // 2. (An ended grant's share, if the sweep has not destroyed it yet, goes now.)
  if (grant.sealed_user_share && statusOf(grant, ctx.now()) !== "active")
    await destroyGrantShare(ctx.db, grant.id);
  assertUsable(grant, ctx.now());
  // The account the app shows (whoami's `address`): after a wallet import, the imported one.
  const account = await userAddresses(ctx.db, user.org_id);
  if (!account.address) throw apiError(ErrorCode.ACCOUNT_NOT_FOUND, "The user has no EVM account");
  // Read as this account signs it: a call to its own accounts is the calls they run (callsOf.ts).
  const request = signedBy(req.request, account.address);
  const entry = activityTypes[req.activityType];
  const now = ctx.now();
  const row: ActivitiesTable = {
    id: ctx.random.uuid(),
    org_id: user.org_id,
    user_id: user.id,
    type: req.activityType,
    fingerprint: createHash("sha256").update(req.raw).digest("hex"),
    status: "ACTIVITY_STATUS_COMPLETED",
    intent: JSON.stringify({
      [entry.intent]: { ...req.intent, signWith: account.address, grantId: grant.id },
    }),
    result: "{}",
    failure: null,
    created_at: now,
    updated_at: now,
    grant_id: grant.id,
  };
  const value = nativeValueOf(request);
  const chainId = chainOf(request);
  const details = {
    grantId: grant.id,
    activityId: row.id,
    type: req.activityType,
    kind: request.kind,
    serverKey: serverKey.name,
    ...(chainId === undefined ? {} : { chainId }),
    value: value.toString(),
  };
  // 3.
  const permissions = JSON.parse(grant.permissions) as GrantPermissions;
  const byGrant = decideUnderGrant(permissions, request);
  if (byGrant.effect !== "allow") {
    if (byGrant.ruleId === GRANT_RULES.value)
      throw apiError(
        ErrorCode.GRANT_LIMIT_EXCEEDED,
        `The grant's valuePerTransaction (${permissions.valuePerTransaction}) is exceeded`,
        {
          data: {
            limit: "valuePerTransaction",
            max: permissions.valuePerTransaction,
            used: value.toString(),
          },
        },
      );
    // No rule of the grant allowed it: outside its chains, contracts and functions.
    const ruleId = byGrant.ruleId === DEFAULT_RULE_ID ? GRANT_RULES.scope : byGrant.ruleId;
    await refuse(ctx, serverKey.appId, row, details, {
      code: ErrorCode.GRANT_DENIED,
      ruleId,
      message: grantRefusal(ruleId),
    });
  }
  // Its limits in tokens: a call on a limited token they cannot count is refused, as is more than a
  // per-transaction limit (the windows are counted, atomically, when the signature is made).
  const spent = tokenSpendsOf(permissions.tokenLimits, request);
  if ("refusal" in spent)
    await refuse(ctx, serverKey.appId, row, details, { code: ErrorCode.GRANT_DENIED, ...spent.refusal });
  const tokens = "spends" in spent ? spent.spends : [];
  const byApp = evaluatePolicy(await ctx.apps.signingPolicyOf(serverKey.appId), request);
  if (byApp.effect !== "allow")
    await refuse(ctx, serverKey.appId, row, details, {
      code: ErrorCode.POLICY_DENIED,
      ruleId: byApp.ruleId,
      message:
        byApp.effect === "deny"
          ? byApp.message
          : `${byApp.message}; a signature under a grant is not held for approval, so it is refused`,
    });
  // The caps as they stand (counted for real, atomically, when the signature is made).
  assertRoom(grant, value, now);
  return {
    grantId: grant.id,
    userId: user.id,
    orgId: user.org_id,
    address: account.address,
    request,
    row,
    details: tokens.length
      ? {
          ...details,
          tokens: tokens.map((t) => ({
            chainId: t.limit.chainId,
            token: t.limit.token,
            amount: t.amount.toString(),
          })),
        }
      : details,
    tokens,
  };
}

/**
 * Signs for a user under one of their grants, in this order:
 *  1. the grant is this app's (404 GRANT_NOT_FOUND) and the user's (403 GRANT_USER_MISMATCH), read from
 *     the database now, never a cache; the user is not disabled (403 USER_DISABLED);
 *  2. it is active: not revoked (403 GRANT_REVOKED), not expired (403 GRANT_EXPIRED);
 *  3. the grant, as a signing policy (grantPolicy.ts), allows what is signed: its chains, contracts,
 *     functions, value per transaction, messages and typed data (403 GRANT_DENIED, or
 *     GRANT_LIMIT_EXCEEDED for the value); then the app's own signing policy (403 POLICY_DENIED: a
 *     signature the app's policy would hold for an admin is refused, a backend cannot wait for one);
 *     a refusal is recorded as a REJECTED activity of the grant, audited `signing.rejected`;
 *     its limits in tokens (tokenLimits.ts) refuse a call on a limited token they cannot count (403
 *     GRANT_DENIED, `grant.tokenLimits`) and more than a per-transaction limit (GRANT_LIMIT_EXCEEDED);
 *  4. the use is counted against the grant's caps atomically (grantStore.reserveUse: 403
 *     GRANT_LIMIT_EXCEEDED — value, operations, tokens per window —, or revoked/expired meanwhile);
 *  5. the signature is made with the user's EVM key, recorded as a COMPLETED activity naming the grant,
 *     and audited `grant.used` in the same transaction (the user's security activity shows it). A split
 *     wallet's key is put together from the share the grant holds (read now: a grant revoked or expired
 *     meanwhile refuses) and the service share, for this signature only (docs/split-custody.md §5.1).
 */
export async function signUnderGrant<T>(
  ctx: GrantContext,
  req: GrantSignatureRequest<T>,
): Promise<GrantSignature<T>> {
  const allowed = await allowUnderGrant(ctx, req);
  // 4.
  const reservation = await reserveUse(ctx, {
    grantId: allowed.grantId,
    value: nativeValueOf(allowed.request),
    tokens: allowed.tokens,
  });
  // The app's own limits in tokens, per user (policyTokenLimits.ts), count what a grant signs too.
  const appId = req.serverKey.appId;
  const byPolicy = await countPolicyTokens(ctx, {
    appId,
    orgId: allowed.orgId,
    policy: await ctx.apps.signingPolicyOf(appId),
    request: allowed.request,
    fingerprint: allowed.row.fingerprint,
  });
  if ("decision" in byPolicy && byPolicy.decision.effect !== "allow") {
    await releaseUse(ctx, reservation);
    await refuse(ctx, appId, allowed.row, allowed.details, {
      code: ErrorCode.POLICY_DENIED,
      ruleId: byPolicy.decision.ruleId,
      message: byPolicy.decision.message,
    });
  }
  const policyTokens = "reservation" in byPolicy ? byPolicy.reservation : null;
  // 5.
  let signed: T;
  try {
    signed = await withSigningKey(
      ctx,
      { orgId: allowed.orgId, signWith: allowed.address, share: grantShare(ctx, allowed.grantId) },
      (_curve, key) => req.sign(key),
    );
  } catch (e) {
    await releaseUse(ctx, reservation);
    await policyTokens?.release();
    throw e;
  }
  const entry = activityTypes[req.activityType];
  const row = { ...allowed.row, result: JSON.stringify({ [entry.result]: req.result(signed) }) };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("activities").values(row).execute();
    await ctx.audit(
      "grant.used",
      { appId: req.serverKey.appId, userId: allowed.userId, details: allowed.details },
      trx,
    );
  });
  return { signed, activityId: row.id, address: allowed.address };
}

function grantRefusal(ruleId: string): string {
  if (ruleId === GRANT_RULES.chain) return "The grant does not cover this chain";
  if (ruleId === "messages") return "The grant does not allow signing messages";
  if (ruleId === "typedData") return "The grant does not allow signing this typed data";
  if (ruleId === OWN_ACCOUNT_CALLS_RULE_ID)
    return "The grant does not allow a call to the user's own account that runs something no rule can read";
  return "The grant does not allow this: another chain, contract or function than it names";
}

/** Records the refused signature (REJECTED, naming the grant), audits it, and throws the refusal. */
async function refuse(
  ctx: GrantContext,
  appId: string,
  row: ActivitiesTable,
  details: Record<string, unknown>,
  refusal: { code: ErrorCode; ruleId: string; message: string },
): Promise<never> {
  const rejected: ActivitiesTable = {
    ...row,
    status: "ACTIVITY_STATUS_REJECTED",
    failure: JSON.stringify({ code: refusal.code, message: refusal.message }),
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("activities").values(rejected).execute();
    await ctx.audit(
      "signing.rejected",
      { appId, userId: row.user_id, details: { ...details, ruleId: refusal.ruleId } },
      trx,
    );
  });
  throw apiError(refusal.code, refusal.message, { data: { activityId: row.id, ruleId: refusal.ruleId } });
}
