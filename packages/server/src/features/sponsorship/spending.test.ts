import { SponsorshipErrorCode } from "@latchkey/protocol";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServiceContext } from "../../context";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../../db/index";
import { RpcError } from "./jsonRpc";
import {
  addedUsage,
  type DailyLimit,
  keptReservation,
  readUsage,
  reserveSpend,
  solanaTransactionSpend,
  userOperationSpend,
  utcDay,
} from "./spending";

// 2027-01-15T12:00:00Z
const NOON = Date.UTC(2027, 0, 15, 12);
const SENDER = "0x1111111111111111111111111111111111111111";
const owner = { appId: "app-1", policyId: "pol", userId: "u1" };

let opened: OpenedDatabase;
let db: Db;
let now = NOON;
let audits: { event: string; details: unknown }[];
const ctx = () =>
  ({
    db,
    dbKind: "sqlite",
    now: () => now,
    audit: async (event: string, entry: { details: unknown }) => {
      audits.push({ event, details: entry.details });
    },
  }) as unknown as Pick<ServiceContext, "db" | "dbKind" | "now" | "audit">;
beforeEach(async () => {
  now = NOON;
  audits = [];
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
  // The reservations name an app and a user: their rows are no part of what is counted here.
  await sql`pragma foreign_keys = off`.execute(db);
});
afterEach(() => opened.close());

const limits = (l: Partial<Record<"opsApp" | "opsUser" | "weiApp" | "weiUser", number | string>>) => ({
  policyId: "pol",
  limits: [
    { limit: "operationsPerDay", scope: "app", measure: "count", max: l.opsApp, unit: "operations" },
    { limit: "operationsPerUserPerDay", scope: "user", measure: "count", max: l.opsUser, unit: "operations" },
    { limit: "weiPerDay", scope: "app", measure: "amount", max: l.weiApp, unit: "wei" },
    { limit: "weiPerUserPerDay", scope: "user", measure: "amount", max: l.weiUser, unit: "wei" },
  ] as DailyLimit[],
});
const op = (nonce: bigint, sender = SENDER) =>
  userOperationSpend({ chainId: 1, sender: sender as `0x${string}`, nonce });
const reserve = (
  policy: ReturnType<typeof limits>,
  record: ReturnType<typeof op>,
  amount: bigint,
  who = owner,
) => reserveSpend(ctx(), { policy, owner: who, record, amount });
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(RpcError);
    return {
      message: (e as RpcError).message,
      reason: (e as RpcError).reason,
      data: (e as RpcError).details,
    };
  }
  throw new Error("not refused");
};

describe("sponsorship reservations", () => {
  it("counts each operation and its amount for the app and the user, per UTC day", async () => {
    await reserve(limits({}), op(0n), 100n);
    await reserve(limits({}), op(1n), 50n, { ...owner, userId: "u2" });
    const day = utcDay(NOON);
    expect(day).toBe("2027-01-15");
    expect(await readUsage(db, owner, day)).toEqual({
      app: { count: 2, amount: 150n },
      user: { count: 1, amount: 100n },
    });
    expect(await readUsage(db, { ...owner, userId: "u3" }, day)).toEqual({
      app: { count: 2, amount: 150n },
      user: { count: 0, amount: 0n },
    });
    expect(await readUsage(db, owner, "2027-01-16")).toEqual({
      app: { count: 0, amount: 0n },
      user: { count: 0, amount: 0n },
    });
    expect(audits).toEqual([
      {
        event: "sponsorship.spent",
        details: { policyId: "pol", day, amount: "100", unit: "wei", operationAdded: true },
      },
      {
        event: "sponsorship.spent",
        details: { policyId: "pol", day, amount: "50", unit: "wei", operationAdded: true },
      },
    ]);
  });

  it("allows up to each limit and refuses past it, until midnight UTC, writing nothing", async () => {
    await reserve(limits({ opsUser: 2, weiApp: 300 }), op(0n), 100n);
    await reserve(limits({ opsUser: 2, weiApp: 300 }), op(1n), 100n);
    expect(await refusal(reserve(limits({ opsUser: 2 }), op(2n), 1n))).toEqual({
      message: "Policy pol sponsors 2 operations a day for this user; the limit is reached",
      reason: SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED,
      data: expect.objectContaining({
        limit: "operationsPerUserPerDay",
        max: "2",
        used: "2",
        resetsAt: "2027-01-16T00:00:00.000Z",
      }),
    });
    const other = { ...owner, userId: "u2" };
    await reserve(limits({ weiApp: 300 }), op(5n), 100n, other);
    expect(await refusal(reserve(limits({ weiApp: 300 }), op(6n), 1n, other))).toMatchObject({
      message: "Policy pol sponsors 300 wei a day for this app; the limit is reached",
      data: { limit: "weiPerDay", max: "300", used: "300" },
    });
    expect(await readUsage(db, other, utcDay(NOON))).toEqual({
      app: { count: 3, amount: 300n },
      user: { count: 1, amount: 100n },
    });
    expect(await refusal(reserve(limits({ opsApp: 3 }), op(6n), 0n, other))).toMatchObject({
      data: { limit: "operationsPerDay" },
    });
    expect(await refusal(reserve(limits({ weiUser: 150 }), op(6n), 51n, other))).toMatchObject({
      data: { limit: "weiPerUserPerDay", used: "100" },
    });
    await reserve(limits({ weiUser: 150 }), op(6n), 50n, other);
    now = Date.UTC(2027, 0, 16);
    await reserve(limits({ opsUser: 2, weiApp: 300 }), op(9n), 300n);
  });

  it("keeps one reservation per operation: a retry adds no operation and only what it costs more", async () => {
    expect(addedUsage(undefined, 5n)).toEqual({ count: 1, amount: 5n });
    expect(addedUsage(5n, 7n)).toEqual({ count: 0, amount: 2n });
    expect(addedUsage(5n, 3n)).toEqual({ count: 0, amount: 0n });
    expect(addedUsage(5n, 5n)).toEqual({ count: 0, amount: 0n });
    expect(keptReservation(undefined, 4n)).toBe(4n);
    expect(keptReservation(5n, 4n)).toBe(5n);
    expect(keptReservation(3n, 4n)).toBe(4n);

    await reserve(limits({ opsUser: 1 }), op(0n), 100n);
    // The same operation (the sender in another case): no new operation.
    await reserve(limits({ opsUser: 1 }), op(0n, SENDER.toUpperCase().replace("0X", "0x")), 150n);
    await reserve(limits({ opsUser: 1 }), op(0n), 120n);
    expect(await readUsage(db, owner, utcDay(NOON))).toEqual({
      app: { count: 1, amount: 150n },
      user: { count: 1, amount: 150n },
    });
    expect(await db.selectFrom("sponsorship_spend").select(["sender", "nonce", "wei"]).execute()).toEqual([
      { sender: SENDER, nonce: "0", wei: "150" },
    ]);
    // The cheaper retry added nothing: no audit entry for it.
    expect(audits.map((a) => (a.details as { amount: string }).amount)).toEqual(["100", "50"]);
    // Under another user, the same operation counts again there.
    await reserve(limits({}), op(0n), 10n, { ...owner, userId: "u2" });
    expect((await readUsage(db, { ...owner, userId: "u2" }, utcDay(NOON))).user).toEqual({
      count: 1,
      amount: 10n,
    });
  });

  it("reserves Solana transactions by signature, in fee lamports", async () => {
    const tx = (signature: string) =>
      solanaTransactionSpend({ signature, userAddress: "Sol1", lamports: 1000n });
    await reserveSpend(ctx(), { policy: limits({ opsUser: 1 }), owner, record: tx("sig-1"), amount: 5000n });
    await reserveSpend(ctx(), { policy: limits({ opsUser: 1 }), owner, record: tx("sig-1"), amount: 5000n });
    await expect(
      reserveSpend(ctx(), { policy: limits({ opsUser: 1 }), owner, record: tx("sig-2"), amount: 5000n }),
    ).rejects.toThrow("Policy pol sponsors 1 operations a day for this user");
    expect(
      await db
        .selectFrom("solana_sponsorship_spend")
        .select(["signature", "fee_lamports", "lamports", "user_address", "day"])
        .execute(),
    ).toEqual([
      { signature: "sig-1", fee_lamports: "5000", lamports: "1000", user_address: "Sol1", day: "2027-01-15" },
    ]);
    expect(audits).toEqual([
      {
        event: "sponsorship.spent",
        details: {
          policyId: "pol",
          day: "2027-01-15",
          amount: "5000",
          unit: "lamports",
          operationAdded: true,
        },
      },
    ]);
  });
});
