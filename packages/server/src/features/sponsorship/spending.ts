import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { Address } from "viem";
import type { ServiceContext } from "../../context";
import type { Db } from "../../db";
import { rpcError } from "./jsonRpc";

/**
 * What sponsored operations reserved, for EVM user operations and Solana transactions alike: one row per
 * operation (its own table: `sponsorship_spend` by chain, sender and nonce; `solana_sponsorship_spend` by
 * the fee payer's signature), and daily totals per policy in `sponsorship_usage`, for the app (scope "app")
 * and each user ("user:<id>"): a count and an amount (wei, or fee lamports). Policy ids are unique within
 * an app across both kinds, so their totals never mix. Days are UTC. An operation reserves the most it can
 * cost the sponsor; what it really costs is at most that.
 */
export interface Usage {
  /** Operations (EVM) or transactions (Solana). */
  count: number;
  /** Wei (EVM) or fee lamports (Solana). */
  amount: bigint;
}

export interface DailyUsage {
  app: Usage;
  user: Usage;
}

/** One daily limit of a policy: its config name, whom and what it counts, its maximum and its unit. */
export interface DailyLimit {
  /** The config name, e.g. "operationsPerUserPerDay": the refusal's `data.limit`. */
  limit: string;
  scope: "user" | "app";
  measure: "count" | "amount";
  /** Unset: no limit. */
  max: number | string | undefined;
  /** What the maximum counts, in the refusal's message: "operations", "wei", "fee lamports". */
  unit: string;
}

/** A policy's daily limits. */
export interface PolicyDailyLimits {
  policyId: string;
  limits: DailyLimit[];
}

export interface Owner {
  appId: string;
  policyId: string;
  userId: string;
}

/**
 * Where one operation's own reservation is kept, by the operation's key. A request for an operation that
 * already has a reservation today under the same policy and user adds no operation, and its reservation
 * becomes the dearer of the two (see keptReservation).
 */
export interface SpendRecord {
  /** The amount this operation already reserved today under the same policy and user, if any. */
  previous(db: Db, owner: Owner, day: string): Promise<bigint | undefined>;
  /** Writes the operation's row, or replaces it. */
  save(trx: Db, values: { owner: Owner; day: string; amount: bigint; now: number }): Promise<void>;
  /** What the amount counts: wei (EVM) or fee lamports (Solana). */
  unit: "wei" | "lamports";
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

const sameOwner = (
  row: { app_id: string; policy_id: string; user_id: string; day: string },
  owner: Owner,
  day: string,
) =>
  row.app_id === owner.appId &&
  row.policy_id === owner.policyId &&
  row.user_id === owner.userId &&
  row.day === day;

export interface OperationKey {
  chainId: number;
  sender: Address;
  nonce: bigint;
}

/** An EVM user operation's reservation, keyed by (chain, sender, nonce); the amount is wei. */
export function userOperationSpend(key: OperationKey): SpendRecord {
  const sender = key.sender.toLowerCase();
  return {
    unit: "wei",
    async previous(db, owner, day) {
      const row = await db
        .selectFrom("sponsorship_spend")
        .selectAll()
        .where("chain_id", "=", key.chainId)
        .where("sender", "=", sender)
        .where("nonce", "=", key.nonce.toString())
        .executeTakeFirst();
      return row && sameOwner(row, owner, day) ? BigInt(row.wei) : undefined;
    },
    async save(trx, { owner, day, amount, now }) {
      const row = {
        app_id: owner.appId,
        policy_id: owner.policyId,
        user_id: owner.userId,
        day,
        wei: amount.toString(),
        updated_at: now,
      };
      // An operation first reserved on another day or under another policy keeps counting there too (the
      // safe side); here it now counts in full.
      await trx
        .insertInto("sponsorship_spend")
        .values({
          chain_id: key.chainId,
          sender,
          nonce: key.nonce.toString(),
          created_at: now,
          ...row,
        })
        .onConflict((oc) => oc.columns(["chain_id", "sender", "nonce"]).doUpdateSet(row))
        .execute();
    },
  };
}

export interface SolanaTransactionKey {
  /** Base58 of the fee payer's signature: the transaction's id. */
  signature: string;
  /** The user's Solana address that signs the transaction. */
  userAddress: string;
  /** Lamports the transaction's System program instructions move. */
  lamports: bigint;
}

/**
 * A Solana transaction's reservation, keyed by the fee payer's signature: the same message signed again
 * is the same signature (ed25519 is deterministic), so it counts once. The amount is fee lamports.
 */
export function solanaTransactionSpend(key: SolanaTransactionKey): SpendRecord {
  return {
    unit: "lamports",
    async previous(db, owner, day) {
      const row = await db
        .selectFrom("solana_sponsorship_spend")
        .selectAll()
        .where("signature", "=", key.signature)
        .executeTakeFirst();
      return row && sameOwner(row, owner, day) ? BigInt(row.fee_lamports) : undefined;
    },
    async save(trx, { owner, day, amount, now }) {
      const row = {
        app_id: owner.appId,
        policy_id: owner.policyId,
        user_id: owner.userId,
        user_address: key.userAddress,
        day,
        fee_lamports: amount.toString(),
        lamports: key.lamports.toString(),
        updated_at: now,
      };
      await trx
        .insertInto("solana_sponsorship_spend")
        .values({ signature: key.signature, created_at: now, ...row })
        .onConflict((oc) => oc.column("signature").doUpdateSet(row))
        .execute();
    },
  };
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
    return row ? { count: Number(row.operations), amount: BigInt(row.wei) } : { count: 0, amount: 0n };
  };
  return { app: find(APP_SCOPE), user: find(userScope(owner.userId)) };
}

/**
 * The policy's daily limits against today's usage plus `add` (one more operation and its cost; a retried
 * operation adds no operation and only the change of its cost). A limit reached: -32005, until midnight UTC.
 */
export function checkDailyLimits(
  policy: PolicyDailyLimits,
  usage: DailyUsage,
  add: Usage,
  now: number,
): void {
  for (const { limit, scope, measure, max, unit } of policy.limits) {
    if (max === undefined) continue;
    const used = usage[scope][measure];
    if (BigInt(used) + BigInt(add[measure]) > BigInt(max)) {
      const who = scope === "user" ? "this user" : "this app";
      throw rpcError(
        RpcErrorCode.LIMIT_EXCEEDED,
        SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED,
        `Policy ${policy.policyId} sponsors ${max} ${unit} a day for ${who}; the limit is reached`,
        { limit, max: String(max), used: String(used), resetsAt: nextUtcMidnight(now) },
      );
    }
  }
}

/**
 * What a request for this operation adds to today's usage: the operation and its amount, or, when it
 * already has a reservation today (a retry), no operation and only what its amount exceeds the
 * reservation by. Never less: the signature answered for the earlier, dearer request stays valid on
 * chain until it expires, so a cheaper re-ask must not give back what that one may still spend.
 */
export function addedUsage(previous: bigint | undefined, amount: bigint): Usage {
  if (previous === undefined) return { count: 1, amount };
  return { count: 0, amount: amount > previous ? amount - previous : 0n };
}

/** What an operation's reservation becomes after a request for it: the most any of its signatures may cost. */
export function keptReservation(previous: bigint | undefined, amount: bigint): bigint {
  return previous !== undefined && previous > amount ? previous : amount;
}

/**
 * Records the operation's reservation, re-checking the daily limits inside one transaction so that they
 * hold across instances: the day's usage rows are made if missing, then locked (PostgreSQL: `FOR UPDATE`,
 * the app's row before the user's, so two requests never wait on each other crosswise; SQLite: the first
 * statement writes, so the transaction holds the database's write lock). Two requests that each fit but
 * together do not are serialised on the app's row: the second sees the first's total and is refused.
 * A retried request for the same operation keeps one reservation, the dearest of its requests: it is
 * raised by a dearer one and never lowered by a cheaper one.
 */
export async function reserveSpend(
  ctx: Pick<ServiceContext, "db" | "dbKind" | "now" | "audit">,
  params: { policy: PolicyDailyLimits; owner: Owner; record: SpendRecord; amount: bigint },
): Promise<void> {
  const { policy, owner, record, amount } = params;
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
      usage.push({ count: Number(row.operations), amount: BigInt(row.wei) });
    }
    const [appUsage, userUsage] = usage as [Usage, Usage];
    const previous = await record.previous(trx, owner, day);
    const add = addedUsage(previous, amount);
    checkDailyLimits(policy, { app: appUsage, user: userUsage }, add, now);
    for (const [i, scope] of scopes.entries()) {
      const u = usage[i] as Usage;
      await trx
        .updateTable("sponsorship_usage")
        .set({
          operations: u.count + add.count,
          wei: (u.amount + add.amount).toString(),
          updated_at: now,
        })
        .where("app_id", "=", owner.appId)
        .where("policy_id", "=", owner.policyId)
        .where("scope", "=", scope)
        .where("day", "=", day)
        .execute();
    }
    await record.save(trx, { owner, day, amount: keptReservation(previous, amount), now });
    // What the sponsor may pay more: in the security log, and the app's `sponsorship.spent` webhook.
    if (add.count > 0 || add.amount > 0n)
      await ctx.audit(
        "sponsorship.spent",
        {
          appId: owner.appId,
          userId: owner.userId,
          details: {
            policyId: owner.policyId,
            day,
            amount: add.amount.toString(),
            unit: record.unit,
            operationAdded: add.count > 0,
          },
        },
        trx,
      );
  });
}
