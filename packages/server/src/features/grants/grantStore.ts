import { ErrorCode, type Grant, type GrantPermissions, type GrantStatus } from "@latchkey/protocol";
import { MAX_GRANT_LIFETIME_MS } from "@latchkey/protocol/schemas";
import type { ServiceContext } from "../../context";
import { destroyGrantShare, grantShareContext } from "../../custody/grantShares";
import type { HeldShare } from "../../custody/splitKey";
import type { Db } from "../../db";
import type { GrantsTable } from "../../db/schema";
import { apiError } from "../../errors";
import { grantCreatedMail } from "../../mail/templates";
import { type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import type { UserRecord } from "../../users/userStore";
import { utcDay } from "../sponsorship/spending";
import { assertWindowRoom, recordSpends, type TokenSpend } from "./tokenLimits";

/** How many compare-and-set rounds one signature tries before answering GRANT_BUSY. */
const MAX_ROUNDS = 64;
/** How many grants one user may hold that are still active. */
export const MAX_ACTIVE_GRANTS_PER_USER = 50;

/** A grant's status now: "expired" for an active grant whose time is up. */
export function statusOf(row: Pick<GrantsTable, "status" | "expires_at">, now: number): GrantStatus {
  if (row.status === "revoked") return "revoked";
  return Number(row.expires_at) <= now ? "expired" : "active";
}

/** A grant row as the wire answers it. */
export function toGrant(row: GrantsTable, now: number): Grant {
  const day = utcDay(now);
  return {
    grantId: row.id,
    userId: row.user_id,
    status: statusOf(row, now),
    permissions: JSON.parse(row.permissions) as GrantPermissions,
    operationsUsed: Number(row.operations_used),
    valueUsedToday: row.spend_day === day ? row.value_spent : "0",
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

/**
 * Whether `user` may make a grant of `permissions` now: `expiresAt` in the future and at most a year
 * ahead, and fewer than MAX_ACTIVE_GRANTS_PER_USER active grants. Checked before the step-up too, so a
 * request that would be refused anyway does not use up the user's proof.
 */
export async function assertGrantCreatable(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { user: UserRecord; permissions: GrantPermissions },
): Promise<void> {
  const { user, permissions } = params;
  const now = ctx.now();
  if (permissions.expiresAt <= now)
    throw apiError(ErrorCode.INVALID_REQUEST, "permissions.expiresAt: must be in the future");
  if (permissions.expiresAt > now + MAX_GRANT_LIFETIME_MS)
    throw apiError(ErrorCode.INVALID_REQUEST, "permissions.expiresAt: must be at most a year ahead");
  const active = await ctx.db
    .selectFrom("grants")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", user.id)
    .where("status", "=", "active")
    .where("expires_at", ">", now)
    .executeTakeFirst();
  if (Number(active?.n ?? 0) >= MAX_ACTIVE_GRANTS_PER_USER)
    throw apiError(
      ErrorCode.RATE_LIMITED,
      `A user may hold ${MAX_ACTIVE_GRANTS_PER_USER} active grants; revoke one first`,
    );
}

/**
 * Records a grant the user made (already checked by their session's stamp, and by a fresh sign-in:
 * `stepUp`, whose verification token is spent in the grant's transaction): active from now until
 * `expiresAt` (see `assertGrantCreatable`). Audited as `grant.created` with the proof used; the account's
 * email gets a security notice (a script of the app's page could ask for one unseen). A split user's
 * `userShare` (already checked to combine to their key) is kept with it, sealed under the data keys as
 * `grant_share:<grantId>`, until the grant ends (docs/split-custody.md §5.1); the caller wipes its copy.
 */
export async function createGrant(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "audit" | "apps" | "mailer" | "keyring">,
  params: {
    user: UserRecord;
    permissions: GrantPermissions;
    ip?: string;
    stepUp: { used: StepUpProofUsed; spendOtpId?: string };
    userShare?: Uint8Array;
  },
): Promise<Grant> {
  const { user, permissions, stepUp } = params;
  await assertGrantCreatable(ctx, { user, permissions });
  const now = ctx.now();
  const id = `grant_${ctx.random.uuid()}`;
  const row: GrantsTable = {
    id,
    app_id: user.appId,
    user_id: user.id,
    org_id: user.orgId,
    permissions: JSON.stringify(permissions),
    status: "active",
    expires_at: permissions.expiresAt,
    max_operations: permissions.maxOperations ?? null,
    operations_used: 0,
    value_per_transaction: permissions.valuePerTransaction,
    value_per_day: permissions.valuePerDay ?? null,
    spend_day: null,
    value_spent: "0",
    version: 0,
    created_at: now,
    updated_at: now,
    revoked_at: null,
    sealed_user_share: params.userShare ? ctx.keyring.seal(params.userShare, grantShareContext(id)) : null,
  };
  await ctx.db.transaction().execute(async (trx) => {
    if (stepUp.spendOtpId) await spendStepUpToken({ db: trx, now: ctx.now }, stepUp.spendOtpId);
    await trx.insertInto("grants").values(row).execute();
    await ctx.audit(
      "grant.created",
      {
        appId: user.appId,
        userId: user.id,
        ...(params.ip ? { ip: params.ip } : {}),
        details: {
          grantId: row.id,
          permissions,
          stepUp: stepUp.used,
          ...(params.userShare ? { custody: "split" } : {}),
        },
      },
      trx,
    );
  });
  const to = user.email;
  if (to)
    ctx.mailer.sendOnceBuilt(
      ctx.apps
        .byId(user.appId)
        .then(
          (app) =>
            app &&
            grantCreatedMail({ to, appName: app.name, locale: app.locale, expiresAt: permissions.expiresAt }),
        ),
    );
  return toGrant(row, now);
}

/** The grants of one user, or of the whole app, newest first (at most 200). */
export async function listGrants(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { appId: string; userId?: string; status?: GrantStatus },
): Promise<Grant[]> {
  const now = ctx.now();
  let q = ctx.db.selectFrom("grants").selectAll().where("app_id", "=", params.appId);
  if (params.userId) q = q.where("user_id", "=", params.userId);
  if (params.status === "revoked") q = q.where("status", "=", "revoked");
  if (params.status === "active") q = q.where("status", "=", "active").where("expires_at", ">", now);
  if (params.status === "expired") q = q.where("status", "=", "active").where("expires_at", "<=", now);
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(200).execute();
  return rows.map((r) => toGrant(r, now));
}

/** The app's grant with this id, read from the database every time (never cached): 404 GRANT_NOT_FOUND. */
export async function loadGrant(
  ctx: Pick<ServiceContext, "db">,
  params: { appId: string; grantId: string },
): Promise<GrantsTable> {
  const row = await ctx.db
    .selectFrom("grants")
    .selectAll()
    .where("id", "=", params.grantId)
    .where("app_id", "=", params.appId)
    .executeTakeFirst();
  if (!row) throw apiError(ErrorCode.GRANT_NOT_FOUND, `This app has no grant ${params.grantId}`);
  return row;
}

/**
 * Revokes one of the user's grants: from the moment this commits, every signature under it is refused on
 * every instance (the grant is read for each one, and its use is a compare-and-set on an active row), and
 * a split user's share it held is destroyed in the same statement. Revoking a revoked grant answers it as
 * it is. Audited as `grant.revoked`.
 */
export async function revokeGrant(
  ctx: Pick<ServiceContext, "db" | "now" | "audit">,
  params: { user: UserRecord; grantId: string; ip?: string },
): Promise<Grant> {
  const { user, grantId } = params;
  const now = ctx.now();
  const row = await loadGrant(ctx, { appId: user.appId, grantId });
  if (row.user_id !== user.id) throw apiError(ErrorCode.GRANT_NOT_FOUND, `You have no grant ${grantId}`);
  if (row.status === "revoked") return toGrant(row, now);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("grants")
      .set((eb) => ({
        status: "revoked",
        revoked_at: now,
        updated_at: now,
        version: eb("version", "+", 1),
        sealed_user_share: null,
      }))
      .where("id", "=", grantId)
      .where("status", "=", "active")
      .execute();
    await ctx.audit(
      "grant.revoked",
      { appId: user.appId, userId: user.id, ...(params.ip ? { ip: params.ip } : {}), details: { grantId } },
      trx,
    );
  });
  return toGrant(await loadGrant(ctx, { appId: user.appId, grantId }), now);
}

/** Refuses a grant that is revoked or expired now. */
export function assertUsable(row: Pick<GrantsTable, "id" | "status" | "expires_at">, now: number): void {
  const status = statusOf(row, now);
  if (status === "revoked") throw apiError(ErrorCode.GRANT_REVOKED, `Grant ${row.id} was revoked`);
  if (status === "expired")
    throw apiError(
      ErrorCode.GRANT_EXPIRED,
      `Grant ${row.id} expired at ${new Date(Number(row.expires_at)).toISOString()}`,
    );
}

/**
 * The user share a split user's grant holds, for one signature under it (custody/splitKey.ts
 * `HeldShare`): read from the database when the signature is made, never cached, so that a revocation or
 * expiry committed meanwhile refuses it (GRANT_REVOKED, GRANT_EXPIRED; an expired grant's share is
 * destroyed then). A grant with no share (made before the user's wallet was split): 403
 * USER_SHARE_REQUIRED, the user grants again.
 */
export function grantShare(ctx: Pick<ServiceContext, "db" | "now" | "keyring">, grantId: string): HeldShare {
  return {
    async open() {
      const row = await ctx.db
        .selectFrom("grants")
        .select(["id", "status", "expires_at", "sealed_user_share"])
        .where("id", "=", grantId)
        .executeTakeFirst();
      if (!row) throw apiError(ErrorCode.GRANT_NOT_FOUND, `No grant ${grantId}`);
      const now = ctx.now();
      if (statusOf(row, now) !== "active") {
        if (row.sealed_user_share) await destroyGrantShare(ctx.db, grantId);
        assertUsable(row, now);
      }
      if (!row.sealed_user_share)
        throw apiError(
          ErrorCode.USER_SHARE_REQUIRED,
          `Grant ${grantId} holds no share of the user's split wallet (it was made before the wallet was split): the user must grant again`,
        );
      const opened = await ctx.keyring.open(row.sealed_user_share, grantShareContext(grantId));
      // A plain Uint8Array: shamir-secret-sharing refuses a Buffer (it checks the constructor).
      const share = new Uint8Array(opened);
      opened.fill(0);
      return share;
    },
  };
}

function limitExceeded(limit: string, max: string | number, used: string | number, resetsAt?: string) {
  return apiError(ErrorCode.GRANT_LIMIT_EXCEEDED, `The grant's ${limit} (${max}) is reached`, {
    data: { limit, max: String(max), used: String(used), ...(resetsAt ? { resetsAt } : {}) },
  });
}

function nextUtcMidnight(ms: number): string {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

/** Refuses, without counting, a use of `value` wei the grant's caps have no room for now. */
export function assertRoom(row: GrantsTable, value: bigint, now: number): void {
  if (value > BigInt(row.value_per_transaction))
    throw limitExceeded("valuePerTransaction", row.value_per_transaction, value.toString());
  const used = Number(row.operations_used);
  if (row.max_operations !== null && used >= Number(row.max_operations))
    throw limitExceeded("maxOperations", Number(row.max_operations), used);
  const spent = row.spend_day === utcDay(now) ? BigInt(row.value_spent) : 0n;
  if (row.value_per_day !== null && spent + value > BigInt(row.value_per_day))
    throw limitExceeded("valuePerDay", row.value_per_day, spent.toString(), nextUtcMidnight(now));
}

/** What one use reserved: undone by `releaseUse` if the signature is not made after all. */
export interface Reservation {
  grantId: string;
  day: string;
  value: bigint;
  /** Names its rows in the grant's token ledger (none when it moves no limited token). */
  id: string;
}

/** Another instance counted first: the transaction is undone and the round tried again. */
class LostRound extends Error {}

/**
 * Counts one signature moving `value` wei (and `tokens` of the grant's limited tokens) against the
 * grant's caps, atomically across instances: the row is read, the caps are checked (per transaction, per
 * UTC day, number of operations; revoked or expired refuses), and the new counts are written by `UPDATE …
 * WHERE id = ? AND version = ? AND status = 'active'` — a compare-and-set that one of several concurrent
 * requests wins; the others read again. So no two requests ever count the same room under a cap, on
 * SQLite or PostgreSQL, in one process or many. Token spends are checked against the grant's ledger
 * (tokenLimits.ts) and written to it in the same transaction as that compare-and-set: a request that
 * loses the round undoes its ledger rows with it, and reads the winner's when it tries again.
 */
export async function reserveUse(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: { grantId: string; value: bigint; tokens?: readonly TokenSpend[] },
): Promise<Reservation> {
  const { grantId, value } = params;
  const tokens = params.tokens ?? [];
  const id = ctx.random.uuid();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const attempt = async (db: Db) => {
      const row = await db
        .selectFrom("grants")
        .selectAll()
        .where("id", "=", grantId)
        .executeTakeFirstOrThrow();
      const now = ctx.now();
      assertUsable(row, now);
      assertRoom(row, value, now);
      await assertWindowRoom(db, grantId, tokens, now);
      const used = Number(row.operations_used);
      const day = utcDay(now);
      const spent = row.spend_day === day ? BigInt(row.value_spent) : 0n;
      const result = await db
        .updateTable("grants")
        .set({
          operations_used: used + 1,
          spend_day: day,
          value_spent: (spent + value).toString(),
          version: Number(row.version) + 1,
          updated_at: now,
        })
        .where("id", "=", grantId)
        .where("version", "=", row.version)
        .where("status", "=", "active")
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw new LostRound();
      await recordSpends(db, { grantId, reservationId: id, spends: tokens, now, id: ctx.random.uuid });
      return { grantId, day, value, id };
    };
    try {
      // Without token spends, the compare-and-set alone is atomic: no transaction is needed.
      return tokens.length ? await ctx.db.transaction().execute(attempt) : await attempt(ctx.db);
    } catch (e) {
      if (!(e instanceof LostRound)) throw e;
    }
    // Another request won this round: read again after a short, random pause.
    await new Promise((r) => setTimeout(r, ctx.random.int(3 + round)));
  }
  throw apiError(ErrorCode.GRANT_BUSY, "Too many signatures under this grant at once; try again");
}

/** Gives back what `reserveUse` counted, for a signature that was not made after all. */
export async function releaseUse(
  ctx: Pick<ServiceContext, "db" | "now">,
  reservation: Reservation,
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const row = await ctx.db
      .selectFrom("grants")
      .selectAll()
      .where("id", "=", reservation.grantId)
      .executeTakeFirst();
    if (!row) return;
    const sameDay = row.spend_day === reservation.day;
    const spent = sameDay ? BigInt(row.value_spent) - reservation.value : BigInt(row.value_spent);
    const result = await ctx.db
      .updateTable("grants")
      .set({
        operations_used: Math.max(0, Number(row.operations_used) - 1),
        value_spent: (spent < 0n ? 0n : spent).toString(),
        version: Number(row.version) + 1,
        updated_at: ctx.now(),
      })
      .where("id", "=", reservation.grantId)
      .where("version", "=", row.version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) break;
  }
  await ctx.db.deleteFrom("grant_token_spends").where("reservation_id", "=", reservation.id).execute();
}
