import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db";
import { retentionSchema, sweepRetention } from "../src/limits/retention";
import { type Harness, startHarness, TEST_APP } from "./helpers";

const DAY = 24 * 60 * 60 * 1000;
const retention = retentionSchema.parse({ batchPauseMs: 0 });

describe.each(["sqlite", "postgres"] as const)("retention of grants and import keys (%s)", (kind) => {
  let h: Harness;
  let db: Db;
  let userId: string;
  let orgId: string;

  beforeAll(async () => {
    h = await startHarness(kind);
    db = h.service.ctx.db;
    userId = randomUUID();
    orgId = randomUUID();
    await db
      .insertInto("users")
      .values({ id: userId, org_id: orgId, app_id: TEST_APP.id, email: null, created_at: Date.now() })
      .execute();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("deletes grants ended longer ago than activities are kept, and import keys long expired", async () => {
    const now = Date.now();
    const kept = retention.activitiesDays * DAY;
    const grant = (id: string, expires: number, revoked: number | null) => ({
      id,
      app_id: TEST_APP.id,
      user_id: userId,
      org_id: orgId,
      permissions: "[]",
      status: revoked === null ? "active" : "revoked",
      expires_at: expires,
      max_operations: null,
      operations_used: 0,
      value_per_transaction: "0",
      value_per_day: null,
      spend_day: null,
      value_spent: "0",
      version: 0,
      created_at: now - 400 * DAY,
      updated_at: now - 400 * DAY,
      revoked_at: revoked,
    });
    const grants = {
      expiredLongAgo: grant(randomUUID(), now - kept - DAY, null),
      revokedLongAgo: grant(randomUUID(), now + 300 * DAY, now - kept - DAY),
      expiredRecently: grant(randomUUID(), now - kept + DAY, null),
      revokedRecently: grant(randomUUID(), now + 300 * DAY, now - DAY),
      active: grant(randomUUID(), now + DAY, null),
    };
    await db.insertInto("grants").values(Object.values(grants)).execute();

    const grace = retention.expiredGraceHours * 60 * 60 * 1000;
    const importKey = (expires: number, used: number | null) => ({
      id: randomUUID(),
      user_id: userId,
      org_id: orgId,
      public_key: `04${randomUUID().replaceAll("-", "")}`,
      sealed_private_key: used === null ? "v1.sealed" : "",
      expires_at: expires,
      used_at: used,
      created_at: expires - 10 * 60 * 1000,
    });
    const keys = {
      usedLongAgo: importKey(now - grace - 60_000, now - grace - 120_000),
      neverUsed: importKey(now - grace - 60_000, null),
      expiredWithinGrace: importKey(now - grace + 60_000, null),
      live: importKey(now + 60_000, null),
    };
    await db.insertInto("import_keys").values(Object.values(keys)).execute();

    const report = await sweepRetention(db, { now, windowSeconds: 600, retention });
    expect(report.complete).toBe(true);
    // The rules ran (the service's own sweeper, running beside the test, may have taken the rows first).
    expect(Object.keys(report.deleted)).toEqual(
      expect.arrayContaining(["grants_expired", "grants_revoked", "import_keys"]),
    );

    const grantIds = (await db.selectFrom("grants").select("id").where("user_id", "=", userId).execute()).map(
      (r) => r.id,
    );
    expect(grantIds.sort()).toEqual(
      [grants.expiredRecently.id, grants.revokedRecently.id, grants.active.id].sort(),
    );
    const keyIds = (
      await db.selectFrom("import_keys").select("id").where("user_id", "=", userId).execute()
    ).map((r) => r.id);
    expect(keyIds.sort()).toEqual([keys.expiredWithinGrace.id, keys.live.id].sort());

    // A second sweep finds nothing more.
    const again = await sweepRetention(db, { now, windowSeconds: 600, retention });
    expect(again.deleted).toMatchObject({ grants_expired: 0, grants_revoked: 0, import_keys: 0 });
  });
});
