import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SWEEP_GRACE_MS, sweepExpired } from "../src/limits/sweeper";
import { type Harness, post, SCENARIO_DATABASES, startHarness, TEST_APP, targetKey } from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

describe.each(SCENARIO_DATABASES)("abuse limits and expiry (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, { rateLimits: { signupsPerIp: 2, oauthPreparesPerIp: 2 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("limits new accounts from one network with 429 and Retry-After; nothing is created", async () => {
    for (const n of [1, 2]) {
      const ok = await post(
        h.url,
        "/signer/v1/signup",
        { email: `many-${n}-${kind}@example.com`, targetPublicKey: targetKey().publicKey },
        KEY,
      );
      expect(ok.status).toBe(200);
    }
    const email = `many-3-${kind}@example.com`;
    const limited = await post(
      h.url,
      "/signer/v1/signup",
      { email, targetPublicKey: targetKey().publicKey },
      KEY,
    );
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({
      code: "RATE_LIMITED",
      error: "Too many new accounts from this network. Try again later.",
    });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const lookup = await post(h.url, "/signer/v1/lookup", { email }, KEY);
    expect(lookup.json.orgId).toBeNull();
    // Bad input is still answered as bad input, and does not count.
    const bad = await post(h.url, "/signer/v1/signup", { email: "nope" }, KEY);
    expect(bad.status).toBe(400);
  });

  it("limits social sign-ins started from one network", async () => {
    const prepare = () => post(h.url, "/signer/v1/prepare-oauth", { nonce: "a".repeat(64) }, KEY);
    for (let i = 0; i < 2; i++) expect((await prepare()).status).not.toBe(429);
    const limited = await prepare();
    expect(limited.status).toBe(429);
    expect(limited.json.error).toBe("Too many sign-in attempts from this network. Try again later.");
  });

  it("sweeps expired codes, challenges, prepared sign-ins, replay records and closed windows", async () => {
    const db = h.service.ctx.db;
    const now = Date.now();
    const old = now - SWEEP_GRACE_MS - 1000;
    const fresh = now + 60_000;
    const user = await db.selectFrom("users").select(["id", "org_id", "app_id"]).executeTakeFirstOrThrow();
    const otp = (expires: number) => ({
      id: randomUUID(),
      app_id: user.app_id,
      org_id: user.org_id,
      user_id: user.id,
      email: "sweep@example.com",
      code_hash: "x",
      attempts: 0,
      expires_at: expires,
      used_at: null,
      created_at: now,
    });
    await db
      .insertInto("otps")
      .values([otp(old), otp(fresh)])
      .execute();
    const request = (expires: number) => ({
      request_key: randomUUID(),
      app_id: user.app_id,
      nonce: "n",
      sealed_verifier: "v",
      expires_at: expires,
      used_at: null,
      id_token_hash: null,
      linked_at: null,
      created_at: now,
    });
    await db
      .insertInto("oauth_requests")
      .values([request(old), request(fresh)])
      .execute();
    await db
      .insertInto("stamp_replays")
      .values([
        { hash: randomUUID(), expires_at: now - 1 },
        { hash: randomUUID(), expires_at: fresh },
      ])
      .execute();
    await db
      .insertInto("rate_limits")
      .values([
        { key: randomUUID(), window_start: now - 3 * 600_000, count: 1 },
        { key: randomUUID(), window_start: now, count: 1 },
      ])
      .execute();

    const deleted = await sweepExpired(db, now, 600);
    expect(deleted).toMatchObject({ otps: 1, oauth_requests: 1, stamp_replays: 1, rate_limits: 1 });
    const left = async (table: "otps" | "oauth_requests" | "stamp_replays") =>
      (await db.selectFrom(table).select("expires_at").execute()).map((r) => r.expires_at);
    for (const table of ["otps", "oauth_requests", "stamp_replays"] as const)
      expect((await left(table)).every((e) => e >= now - SWEEP_GRACE_MS)).toBe(true);
    expect((await sweepExpired(db, now, 600)).otps).toBe(0);
  });
});
