import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db";
import {
  type Retention,
  resolveRetention,
  retentionEnvName,
  retentionSchema,
  sweepRetention,
} from "../src/limits/retention";
import { type Harness, post, startHarness, TEST_APP } from "./helpers";

const DAY = 24 * 60 * 60 * 1000;
const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const WINDOW_SECONDS = 600;

describe("retention settings", () => {
  it("has safe defaults: the security log kept longest, webhooks shorter than activities", () => {
    const r = retentionSchema.parse({});
    expect(r).toMatchObject({ activitiesDays: 90, auditLogDays: 400, webhooksDays: 30, batchSize: 1000 });
    expect(r.auditLogDays).toBeGreaterThan(Math.max(r.activitiesDays, r.webhooksDays, r.sponsorshipDays));
  });

  it("takes the config file's section, then LATCHKEY_RETENTION_* over it, and refuses what is out of range", () => {
    expect(retentionEnvName("auditLogDays")).toBe("LATCHKEY_RETENTION_AUDIT_LOG_DAYS");
    const r = resolveRetention(
      { activitiesDays: 30, auditLogDays: 500 },
      { LATCHKEY_RETENTION_AUDIT_LOG_DAYS: "730", LATCHKEY_RETENTION_BATCH_SIZE: "500" },
    );
    expect(r).toMatchObject({ activitiesDays: 30, auditLogDays: 730, batchSize: 500, webhooksDays: 30 });
    expect(() => resolveRetention({}, { LATCHKEY_RETENTION_ACTIVITIES_DAYS: "soon" })).toThrow(
      "LATCHKEY_RETENTION_ACTIVITIES_DAYS takes a whole number",
    );
    expect(() => resolveRetention({ batchSize: 1_000_000 })).toThrow(/batchSize/);
    // Today's sponsorship spend is read by every sponsored operation: never swept on the same day.
    expect(() => resolveRetention({ sponsorshipDays: 1 })).toThrow(/sponsorshipDays/);
  });
});

describe.each(["sqlite", "postgres"] as const)("retention sweeper (%s)", (kind) => {
  let h: Harness;
  let db: Db;
  let userId: string;
  let orgId: string;
  const retention: Retention = retentionSchema.parse({ batchPauseMs: 0 });

  beforeAll(async () => {
    h = await startHarness(kind, { rateLimits: { lookupsPerIp: 1_000_000 } });
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

  it("deletes rows past their retention, keeps recent ones and what something live still needs", async () => {
    const now = Date.now();
    const grace = retention.expiredGraceHours * 60 * 60 * 1000;
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    // Per table: ids expected to go, and ids expected to stay.
    const expected: Record<string, { gone: string[]; kept: string[] }> = {};
    const mark = (table: string, id: string, goes: boolean) => {
      expected[table] ??= { gone: [], kept: [] };
      (goes ? expected[table].gone : expected[table].kept).push(id);
      return id;
    };

    for (const [expires, goes] of [
      [now - grace - 1000, true],
      [now - grace + 60_000, false],
      [now + 60_000, false],
    ] as const) {
      await db
        .insertInto("otps")
        .values({
          id: mark("otps", randomUUID(), goes),
          app_id: TEST_APP.id,
          org_id: orgId,
          user_id: userId,
          email: "r@example.com",
          code_hash: "h",
          attempts: 0,
          expires_at: expires,
          used_at: null,
          created_at: now,
        })
        .execute();
      await db
        .insertInto("contact_otps")
        .values({
          id: mark("contact_otps", randomUUID(), goes),
          app_id: TEST_APP.id,
          contact: "r@example.com",
          code_hash: "h",
          attempts: 0,
          expires_at: expires,
          used_at: null,
          token_used_at: null,
          created_at: now,
        })
        .execute();
      await db
        .insertInto("mfa_challenges")
        .values({
          id: mark("mfa_challenges", randomUUID(), goes),
          user_id: userId,
          expires_at: expires,
          used_at: null,
          created_at: now,
        })
        .execute();
      await db
        .insertInto("oauth_requests")
        .values({
          request_key: mark("oauth_requests", randomUUID(), goes),
          app_id: TEST_APP.id,
          nonce: "n",
          sealed_verifier: "v",
          expires_at: expires,
          used_at: null,
          id_token_hash: null,
          linked_at: null,
          created_at: now,
        })
        .execute();
      await db
        .insertInto("siwe_nonces")
        .values({
          nonce: mark("siwe_nonces", randomUUID().replaceAll("-", ""), goes),
          app_id: TEST_APP.id,
          address: "0x0000000000000000000000000000000000000001",
          chain_id: 1,
          expires_at: expires,
          used_at: null,
        })
        .execute();
    }
    // A replay record goes as soon as the stamp it guards has expired.
    await db
      .insertInto("stamp_replays")
      .values([
        { hash: mark("stamp_replays", randomUUID(), true), expires_at: now - 1 },
        { hash: mark("stamp_replays", randomUUID(), false), expires_at: now + 60_000 },
      ])
      .execute();
    const windowMs = WINDOW_SECONDS * 1000;
    await db
      .insertInto("rate_limits")
      .values([
        { key: mark("rate_limits", randomUUID(), true), window_start: now - 3 * windowMs, count: 1 },
        { key: mark("rate_limits", randomUUID(), false), window_start: now - windowMs, count: 1 },
        { key: mark("rate_limits", randomUUID(), false), window_start: now, count: 1 },
      ])
      .execute();
    const apiKey = (id: string, kind: "session" | "api", expires: number | null, created: number) => ({
      id,
      org_id: orgId,
      user_id: userId,
      name: "k",
      public_key: randomUUID(),
      kind,
      expires_at: expires,
      created_at: created,
      revoked_at: null,
    });
    await db
      .insertInto("api_keys")
      .values([
        apiKey(mark("sessions", randomUUID(), true), "session", now - 8 * DAY, now - 9 * DAY),
        apiKey(mark("sessions", randomUUID(), false), "session", now - DAY, now - 2 * DAY),
        // Still valid, and an API key that never expires, made long ago.
        apiKey(mark("sessions", randomUUID(), false), "session", now + DAY, now - 500 * DAY),
        apiKey(mark("sessions", randomUUID(), false), "api", null, now - 500 * DAY),
      ])
      .execute();
    const activity = (id: string, status: string, created: number) => ({
      id,
      org_id: orgId,
      user_id: userId,
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      fingerprint: randomUUID(),
      status,
      intent: "{}",
      result: "{}",
      failure: null,
      created_at: created,
      updated_at: created,
    });
    await db
      .insertInto("activities")
      .values([
        activity(mark("activities", randomUUID(), true), "ACTIVITY_STATUS_COMPLETED", now - 91 * DAY),
        activity(mark("activities", randomUUID(), true), "ACTIVITY_STATUS_REJECTED", now - 91 * DAY),
        activity(mark("activities", randomUUID(), true), "ACTIVITY_STATUS_FAILED", now - 91 * DAY),
        activity(mark("activities", randomUUID(), false), "ACTIVITY_STATUS_COMPLETED", now - 89 * DAY),
        // Waiting for an admin, or still being made: kept, however old.
        activity(
          mark("activities", randomUUID(), false),
          "ACTIVITY_STATUS_CONSENSUS_NEEDED",
          now - 200 * DAY,
        ),
        activity(mark("activities", randomUUID(), false), "ACTIVITY_STATUS_PENDING", now - 200 * DAY),
      ])
      .execute();
    const auditRow = (id: string, created: number) => ({
      id,
      app_id: TEST_APP.id,
      user_id: userId,
      event: "SIGN_IN",
      ip: "127.0.0.1",
      details: null,
      created_at: created,
    });
    await db
      .insertInto("audit_log")
      .values([
        auditRow(mark("audit_log", randomUUID(), true), now - 401 * DAY),
        auditRow(mark("audit_log", randomUUID(), false), now - 399 * DAY),
      ])
      .execute();

    // Webhooks: an endpoint, events, one delivery each (with an attempt), in every state.
    const endpointId = randomUUID();
    await db
      .insertInto("webhook_endpoints")
      .values({
        id: endpointId,
        app_id: TEST_APP.id,
        url: `http://127.0.0.1:9/${endpointId}`,
        events: "[]",
        sealed_secret: "s",
        created_at: now - 100 * DAY,
        updated_at: now - 100 * DAY,
        removed_at: now - 100 * DAY,
      })
      .execute();
    const event = async (created: number, goes: boolean) => {
      const id = mark("webhook_events", randomUUID(), goes);
      await db
        .insertInto("webhook_events")
        .values({ id, app_id: TEST_APP.id, type: "user.created", payload: "{}", created_at: created })
        .execute();
      return id;
    };
    const delivery = async (
      eventId: string,
      status: "pending" | "delivered" | "failed",
      updated: number,
      goes: boolean,
    ) => {
      const id = mark("webhook_deliveries", randomUUID(), goes);
      await db
        .insertInto("webhook_deliveries")
        .values({
          id,
          event_id: eventId,
          endpoint_id: endpointId,
          app_id: TEST_APP.id,
          status,
          attempts: 1,
          // A pending one is not due during the test: the service's outbox leaves it alone.
          next_attempt_at: now + 100 * DAY,
          give_up_at: now + 100 * DAY,
          leased_until: null,
          lease_owner: null,
          last_status_code: status === "delivered" ? 200 : 500,
          last_error: null,
          delivered_at: status === "delivered" ? updated : null,
          created_at: updated,
          updated_at: updated,
        })
        .execute();
      await db
        .insertInto("webhook_attempts")
        .values({
          id: mark("webhook_attempts", randomUUID(), goes),
          delivery_id: id,
          app_id: TEST_APP.id,
          attempt: 1,
          started_at: updated,
          duration_ms: 5,
          status_code: 200,
          error: null,
        })
        .execute();
    };
    // Done with long ago: the deliveries, their attempts and then their events go.
    await delivery(await event(now - 31 * DAY, true), "delivered", now - 31 * DAY, true);
    await delivery(await event(now - 40 * DAY, true), "failed", now - 31 * DAY, true);
    // Still pending (however old), or done recently: they and their events stay.
    await delivery(await event(now - 100 * DAY, false), "pending", now - 100 * DAY, false);
    await delivery(await event(now - 31 * DAY, false), "delivered", now - DAY, false);
    await event(now - 31 * DAY, true); // an event no endpoint wanted
    await event(now - DAY, false);

    const spend = (nonce: string, d: string) => ({
      chain_id: 1,
      sender: "0x0000000000000000000000000000000000000002",
      nonce,
      app_id: TEST_APP.id,
      policy_id: "p",
      user_id: userId,
      day: d,
      wei: "1",
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto("sponsorship_spend")
      .values([
        spend(mark("sponsorship_spend", randomUUID(), true), day(now - 91 * DAY)),
        spend(mark("sponsorship_spend", randomUUID(), false), day(now - 89 * DAY)),
        spend(mark("sponsorship_spend", randomUUID(), false), day(now)),
      ])
      .execute();
    const solanaSpend = (signature: string, d: string) => ({
      signature,
      app_id: TEST_APP.id,
      policy_id: "p",
      user_id: userId,
      user_address: "So11111111111111111111111111111111111111112",
      day: d,
      fee_lamports: "5000",
      lamports: "0",
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto("solana_sponsorship_spend")
      .values([
        solanaSpend(mark("solana_sponsorship_spend", randomUUID(), true), day(now - 91 * DAY)),
        solanaSpend(mark("solana_sponsorship_spend", randomUUID(), false), day(now)),
      ])
      .execute();
    const usage = (scope: string, d: string) => ({
      app_id: TEST_APP.id,
      policy_id: "p",
      scope,
      day: d,
      operations: 1,
      wei: "1",
      updated_at: now,
    });
    await db
      .insertInto("sponsorship_usage")
      .values([
        usage(mark("sponsorship_usage", `user:${randomUUID()}`, true), day(now - 91 * DAY)),
        usage(mark("sponsorship_usage", `user:${randomUUID()}`, false), day(now)),
      ])
      .execute();

    const report = await sweepRetention(db, { now, windowSeconds: WINDOW_SECONDS, retention });
    expect(report.complete).toBe(true);

    const present = async (table: string): Promise<Set<string>> => {
      const ids = await remaining(db, table);
      return new Set(ids);
    };
    for (const [table, { gone, kept }] of Object.entries(expected)) {
      const ids = await present(table);
      expect(
        gone.filter((id) => ids.has(id)),
        `${table}: rows past retention left`,
      ).toEqual([]);
      expect(
        kept.filter((id) => !ids.has(id)),
        `${table}: rows to keep deleted`,
      ).toEqual([]);
    }
    // Every table the sweeper knows was tried; at least the rows marked to go were deleted.
    for (const [name, { gone }] of Object.entries(expected)) {
      if (name === "webhook_attempts") continue; // deleted with their deliveries
      expect(report.deleted[name], name).toBeGreaterThanOrEqual(gone.length);
    }
    // A second sweep finds nothing more of ours.
    const again = await sweepRetention(db, { now, windowSeconds: WINDOW_SECONDS, retention });
    expect(again.deleted.audit_log).toBe(0);
    expect(again.deleted.activities).toBe(0);
  });

  it("deletes 20,000 old rows in batches while requests keep being answered", async () => {
    const now = Date.now();
    const total = 20_000;
    for (let i = 0; i < total; i += 1000) {
      await db
        .insertInto("audit_log")
        .values(
          Array.from({ length: 1000 }, (_, j) => ({
            id: `old-${i + j}-${randomUUID()}`,
            app_id: TEST_APP.id,
            user_id: userId,
            event: "SIGN_IN",
            ip: "127.0.0.1",
            details: '{"method":"email_code"}',
            created_at: now - 500 * DAY + i + j,
          })),
        )
        .execute();
    }
    // A stream of requests that read and write the database (a lookup counts against a rate limit).
    let sweepDone = false;
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const stream = async () => {
      while (!sweepDone) {
        const t = performance.now();
        const r = await post(h.url, "/signer/v1/lookup", { email: "nobody@example.com" }, KEY);
        latencies.push(performance.now() - t);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    };
    const streams = Array.from({ length: 4 }, stream);
    const started = performance.now();
    const report = await sweepRetention(db, {
      now,
      windowSeconds: WINDOW_SECONDS,
      retention: { ...retention, batchSize: 1000, batchPauseMs: 20 },
    }).finally(() => {
      sweepDone = true;
    });
    const took = performance.now() - started;
    await Promise.all(streams);

    expect(report.deleted.audit_log).toBe(total);
    expect(report.maxBatch).toBeLessThanOrEqual(1000);
    // SQLite's batches start at 100 rows and grow with the pace, up to 1,000: more statements than 20 full
    // ones. PostgreSQL's are full: 20, then one that finds fewer than a batch.
    if (kind === "sqlite") expect(report.batches.audit_log).toBeGreaterThan(total / 1000);
    else expect(report.batches.audit_log).toBe(total / 1000 + 1);
    expect(
      await db
        .selectFrom("audit_log")
        .select("id")
        .where("created_at", "<", now - 400 * DAY)
        .execute(),
    ).toEqual([]);
    expect([...statuses.keys()]).toEqual([200]);
    expect(latencies.length).toBeGreaterThan(0);
    const sorted = [...latencies].sort((a, b) => a - b);
    const p = (q: number) =>
      (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
    console.log(
      `[${kind}] swept ${total} audit rows in ${report.batches.audit_log} statements (max ${report.maxBatch} rows) ` +
        `in ${took.toFixed(0)} ms; ${latencies.length} lookups meanwhile: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, ` +
        `max ${p(1)} ms`,
    );
  });
});

/** The ids of a table's rows (its key column; sponsorship_usage by scope). */
async function remaining(db: Db, table: string): Promise<string[]> {
  const column: Record<string, string> = {
    oauth_requests: "request_key",
    siwe_nonces: "nonce",
    stamp_replays: "hash",
    rate_limits: "key",
    sessions: "id",
    sponsorship_spend: "nonce",
    solana_sponsorship_spend: "signature",
    sponsorship_usage: "scope",
  };
  const name = table === "sessions" ? "api_keys" : table;
  const col = column[table] ?? "id";
  const { rows } = await sql<{ id: string }>`select ${sql.ref(col)} as id from ${sql.table(name)}`.execute(
    db,
  );
  return rows.map((r) => r.id);
}
