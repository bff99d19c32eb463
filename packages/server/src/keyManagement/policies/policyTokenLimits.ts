import type { ServiceContext } from "../../context";
import type { Db } from "../../db";
import { ApiError } from "../../errors";
import { assertLedgerRoom, tokenSpendsOf } from "../../features/grants/tokenLimits";
import type { PolicyDecision } from "./evaluatePolicy";
import type { SigningPolicy } from "./policySchema";
import type { SigningRequest } from "./signingRequest";

/** How many compare-and-set rounds one signature tries before it is refused as busy. */
const MAX_ROUNDS = 64;
/** Spends older than the longest window (30 days) count for nothing: they are deleted as others come. */
const KEPT_MS = 31 * 86_400_000;

/** A user's signature counted against the policy's token limits: `release` gives it back. */
export interface PolicyTokenReservation {
  release(): Promise<void>;
}

/** Another instance counted first: the transaction is undone and the round tried again. */
class LostRound extends Error {}

/**
 * Counts a user's signature against the app's signing policy's `tokenLimits` (each user has their own
 * room), after the rules allowed or held it: a call on a limited token the limits cannot count, or more
 * than a limit has left, is a `deny` decision naming `tokenLimits` and saying which limit and how much is
 * left (its data as the grants' GRANT_LIMIT_EXCEEDED carries it); otherwise the spends are written to
 * the user's ledger (`user_token_spends`) in the transaction of a compare-and-set on the user's counter
 * row, so concurrent signatures on any instance never pass a limit. A body already counted (the same
 * fingerprint) is not counted again. Null when the policy limits no token or the signature moves none.
 *
 * @example
 * const counted = await countPolicyTokens(ctx, { appId, orgId, policy, request, fingerprint });
 * if ("decision" in counted) refuse(counted.decision);
 */
export async function countPolicyTokens(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: {
    appId: string;
    orgId: string;
    policy: SigningPolicy | undefined;
    request: SigningRequest;
    fingerprint: string;
  },
): Promise<{ decision: PolicyDecision } | { reservation: PolicyTokenReservation | null }> {
  const limits = params.policy?.tokenLimits;
  if (!limits?.length) return { reservation: null };
  const { appId, orgId, fingerprint } = params;
  let spends: ReturnType<typeof tokenSpendsOf>;
  try {
    spends = tokenSpendsOf(limits, params.request, "policy");
  } catch (e) {
    return refusal(e);
  }
  if ("refusal" in spends)
    return {
      decision: { effect: "deny", ruleId: TOKEN_LIMITS_RULE_ID_POLICY, message: spends.refusal.message },
    };
  if (spends.spends.length === 0) return { reservation: null };
  const counted = await ctx.db
    .selectFrom("user_token_spends")
    .select("id")
    .where("fingerprint", "=", fingerprint)
    .executeTakeFirst();
  if (counted) return { reservation: null };
  await ctx.db
    .insertInto("user_token_counters")
    .values({ app_id: appId, org_id: orgId, version: 0 })
    .onConflict((oc) => oc.columns(["app_id", "org_id"]).doNothing())
    .execute();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    try {
      await ctx.db.transaction().execute(async (trx: Db) => {
        const now = ctx.now();
        const row = await trx
          .selectFrom("user_token_counters")
          .select("version")
          .where("app_id", "=", appId)
          .where("org_id", "=", orgId)
          .executeTakeFirstOrThrow();
        await assertLedgerRoom(
          (limit, since) =>
            trx
              .selectFrom("user_token_spends")
              .select(["amount", "spent_at"])
              .where("app_id", "=", appId)
              .where("org_id", "=", orgId)
              .where("chain_id", "=", limit.chainId)
              .where("token", "=", limit.token)
              .where("spent_at", ">=", since)
              .orderBy("spent_at", "asc")
              .execute(),
          spends.spends,
          now,
          "policy",
        );
        const won = await trx
          .updateTable("user_token_counters")
          .set({ version: Number(row.version) + 1 })
          .where("app_id", "=", appId)
          .where("org_id", "=", orgId)
          .where("version", "=", row.version)
          .executeTakeFirst();
        if (Number(won.numUpdatedRows) !== 1) throw new LostRound();
        await trx
          .insertInto("user_token_spends")
          .values(
            spends.spends.map((s) => ({
              id: ctx.random.uuid(),
              app_id: appId,
              org_id: orgId,
              chain_id: s.limit.chainId,
              token: s.limit.token,
              amount: s.amount.toString(),
              fingerprint,
              spent_at: now,
            })),
          )
          .execute();
        await trx
          .deleteFrom("user_token_spends")
          .where("app_id", "=", appId)
          .where("org_id", "=", orgId)
          .where("spent_at", "<", now - KEPT_MS)
          .execute();
      });
      return {
        reservation: {
          async release() {
            await ctx.db.deleteFrom("user_token_spends").where("fingerprint", "=", fingerprint).execute();
          },
        },
      };
    } catch (e) {
      if (e instanceof LostRound) {
        await new Promise((r) => setTimeout(r, ctx.random.int(3 + round)));
        continue;
      }
      return refusal(e);
    }
  }
  return {
    decision: {
      effect: "deny",
      ruleId: TOKEN_LIMITS_RULE_ID_POLICY,
      message: "Refused by the signing policy: too many signatures of this user at once; try again",
    },
  };
}

/**
 * Gives back what the policy's token limits counted for a held activity that ends without a signature
 * (rejected, refused at approval, failed): its spends are found by the activity's body fingerprint.
 */
export async function releasePolicyTokens(db: Db, activityId: string): Promise<void> {
  await db
    .deleteFrom("user_token_spends")
    .where(
      "fingerprint",
      "in",
      db.selectFrom("activities").select("fingerprint").where("id", "=", activityId),
    )
    .execute();
}

/** The rule id a refusal by the policy's token limits names. */
export const TOKEN_LIMITS_RULE_ID_POLICY = "tokenLimits";

function refusal(e: unknown): { decision: PolicyDecision } {
  if (!(e instanceof ApiError)) throw e;
  return {
    decision: { effect: "deny", ruleId: TOKEN_LIMITS_RULE_ID_POLICY, message: e.message },
  };
}
