import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { Address } from "viem";
import type { SponsorshipPolicy } from "../../config";
import type { ServiceContext } from "../../context";
import type { Db } from "../../db";
import { rpcError } from "./jsonRpc";

/**
 * What sponsored operations reserved: one `sponsorship_spend` row per operation (chain, sender, nonce),
 * and daily totals per policy in `sponsorship_usage`, for the app (scope "app") and each user
 * ("user:<id>"). Days are UTC. An operation reserves its maximum cost (gas limits × maxFeePerGas); what it
 * really costs on-chain is less.
 */
export interface Usage {
  operations: number;
  wei: bigint;
}

export interface DailyUsage {
  app: Usage;
  user: Usage;
}

const APP_SCOPE = "app";
const userScope = (userId: string) => `user:${userId}`;

/** `YYYY-MM-DD` of the UTC day `ms` falls in. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function nextUtcMidnight(ms: number): string {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

export interface OperationKey {
  chainId: number;
  sender: Address;
  nonce: bigint;
}

interface Owner {
  appId: string;
  policyId: string;
  userId: string;
}

/** Today's totals of the policy, for the app and for the user (read without locking: a pre-check). */
export async function readUsage(db: Db, owner: Owner, day: string): Promise<DailyUsage> {
  const rows = await db
    .selectFrom("sponsorship_usage")
    .select(["scope", "operations", "wei"])
    .where("app_id", "=", owner.appId)
    .where("policy_id", "=", owner.policyId)
    .where("day", "=", day)
    .where("scope", "in", [APP_SCOPE, userScope(owner.userId)])
    .execute();
  const find = (scope: string): Usage => {
    const row = rows.find((r) => r.scope === scope);
    return row ? { operations: Number(row.operations), wei: BigInt(row.wei) } : { operations: 0, wei: 0n };
  };
  return { app: find(APP_SCOPE), user: find(userScope(owner.userId)) };
}

/** The reservation this operation already has today under the same policy and user, if any. */
export async function previousReservation(
  db: Db,
  key: OperationKey,
  owner: Owner,
  day: string,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom("sponsorship_spend")
    .selectAll()
    .where("chain_id", "=", key.chainId)
    .where("sender", "=", key.sender.toLowerCase())
    .where("nonce", "=", key.nonce.toString())
    .executeTakeFirst();
  const same =
    row &&
    row.app_id === owner.appId &&
    row.policy_id === owner.policyId &&
    row.user_id === owner.userId &&
    row.day === day;
  return same ? BigInt(row.wei) : undefined;
}

/**
 * The policy's daily limits against today's usage plus `add` (one more operation and its cost; a retried
 * operation adds no operation and only the change of its cost). A limit reached: -32005, until midnight UTC.
 */
export function checkDailyLimits(
  policy: SponsorshipPolicy,
  usage: DailyUsage,
  add: { operations: number; wei: bigint },
  now: number,
): void {
  const { limits } = policy;
  const checks = [
    ["operationsPerUserPerDay", limits.operationsPerUserPerDay, usage.user.operations, add.operations],
    ["weiPerUserPerDay", limits.weiPerUserPerDay, usage.user.wei, add.wei],
    ["operationsPerAppPerDay", limits.operationsPerAppPerDay, usage.app.operations, add.operations],
    ["weiPerAppPerDay", limits.weiPerAppPerDay, usage.app.wei, add.wei],
  ] as const;
  for (const [limit, max, used, more] of checks) {
    if (max === undefined) continue;
    if (BigInt(used) + BigInt(more) > BigInt(max)) {
      const who = limit.includes("User") ? "this user" : "this app";
      const what = limit.startsWith("operations") ? `${max} operations` : `${max} wei`;
      throw rpcError(
        RpcErrorCode.LIMIT_EXCEEDED,
        SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED,
        `Policy ${policy.id} sponsors ${what} a day for ${who}; the limit is reached`,
        { limit, max: String(max), used: String(used), resetsAt: nextUtcMidnight(now) },
      );
    }
  }
}

/**
 * Records the operation's reservation, re-checking the daily limits inside one transaction so that they
 * hold across instances: the day's usage rows are made if missing, then locked (PostgreSQL: `FOR UPDATE`,
 * the app's row before the user's, so two requests never wait on each other crosswise; SQLite: the first
 * statement writes, so the transaction holds the database's write lock). Two requests that each fit but
 * together do not are serialised on the app's row: the second sees the first's total and is refused.
 * A retried request for the same operation (chain, sender, nonce) replaces its reservation.
 */
export async function reserveSpend(
  ctx: Pick<ServiceContext, "db" | "dbKind" | "now">,
  params: { policy: SponsorshipPolicy; owner: Owner; key: OperationKey; wei: bigint },
): Promise<void> {
  const { policy, owner, key, wei } = params;
  const now = ctx.now();
  const day = utcDay(now);
  await ctx.db.transaction().execute(async (trx) => {
    const scopes = [APP_SCOPE, userScope(owner.userId)];
    await trx
      .insertInto("sponsorship_usage")
      .values(
        scopes.map((scope) => ({
          app_id: owner.appId,
          policy_id: owner.policyId,
          scope,
          day,
          operations: 0,
          wei: "0",
          updated_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(["app_id", "policy_id", "scope", "day"]).doNothing())
      .execute();
    const usage: Usage[] = [];
    for (const scope of scopes) {
      let q = trx
        .selectFrom("sponsorship_usage")
        .select(["operations", "wei"])
        .where("app_id", "=", owner.appId)
        .where("policy_id", "=", owner.policyId)
        .where("scope", "=", scope)
        .where("day", "=", day);
      if (ctx.dbKind === "postgres") q = q.forUpdate();
      const row = await q.executeTakeFirstOrThrow();
      usage.push({ operations: Number(row.operations), wei: BigInt(row.wei) });
    }
    const [appUsage, userUsage] = usage as [Usage, Usage];
    const previous = await previousReservation(trx, key, owner, day);
    const add = { operations: previous === undefined ? 1 : 0, wei: wei - (previous ?? 0n) };
    checkDailyLimits(policy, { app: appUsage, user: userUsage }, add, now);
    for (const [i, scope] of scopes.entries()) {
      const u = usage[i] as Usage;
      await trx
        .updateTable("sponsorship_usage")
        .set({
          operations: u.operations + add.operations,
          wei: (u.wei + add.wei).toString(),
          updated_at: now,
        })
        .where("app_id", "=", owner.appId)
        .where("policy_id", "=", owner.policyId)
        .where("scope", "=", scope)
        .where("day", "=", day)
        .execute();
    }
    const row = {
      app_id: owner.appId,
      policy_id: owner.policyId,
      user_id: owner.userId,
      day,
      wei: wei.toString(),
      updated_at: now,
    };
    // An operation first reserved on another day or under another policy keeps counting there too (the
    // safe side); here it now counts in full.
    await trx
      .insertInto("sponsorship_spend")
      .values({
        chain_id: key.chainId,
        sender: key.sender.toLowerCase(),
        nonce: key.nonce.toString(),
        created_at: now,
        ...row,
      })
      .onConflict((oc) => oc.columns(["chain_id", "sender", "nonce"]).doUpdateSet(row))
      .execute();
  });
}
