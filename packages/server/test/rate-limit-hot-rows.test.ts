import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import { SHARDS, shardRoom } from "../src/limits/rateLimit";
import { freshDatabase, post, type Smtp, startSmtp, TEST_APP, targetKey } from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const WINDOW_SECONDS = 600;

describe("shard rooms", () => {
  it("split a limit into at most SHARDS rows whose rooms sum to it exactly", () => {
    for (const limit of [1, 2, 15, 16, 17, 25, 100, 1001]) {
      const rooms = shardRoom(limit);
      expect(rooms.length).toBe(Math.min(limit, SHARDS));
      expect(rooms.reduce((a, b) => a + b, 0)).toBe(limit);
      expect(Math.min(...rooms)).toBeGreaterThanOrEqual(1);
      expect(Math.max(...rooms) - Math.min(...rooms)).toBeLessThanOrEqual(1);
    }
  });
});

describe.each(["sqlite", "postgres"] as const)("per-address limits across two instances (%s)", (kind) => {
  const LOOKUPS = 25;
  const SIGNUPS = 6;
  let a: TestService;
  let b: TestService;
  let smtp: Smtp;
  let drop: () => Promise<void>;
  const clock = { offset: 0, now: () => Date.now() + clock.offset };

  beforeAll(async () => {
    smtp = await startSmtp();
    const database = await freshDatabase(kind);
    drop = database.drop;
    const options = {
      db: database.url,
      // Both instances open the same sealed data: one master key.
      masterKey: randomBytes(32),
      smtpUrl: smtp.url,
      apps: [TEST_APP],
      rateLimits: {
        windowSeconds: WINDOW_SECONDS,
        lookupsPerIp: LOOKUPS,
        signupsPerIp: SIGNUPS,
        mailsPerIp: 1000,
      },
      logLevel: "silent",
      now: clock.now,
    };
    // One after the other: the first migrates the shared database.
    a = await startTestService(options);
    b = await startTestService(options);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await smtp?.close();
    await drop?.();
  });

  /** `n` requests at once, alternating between the two instances; the answers' statuses and codes. */
  async function burst(n: number, send: (url: string, i: number) => ReturnType<typeof post>) {
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => send(i % 2 ? b.url : a.url, i)));
    return {
      ok: answers.filter((r) => r.status === 200).length,
      limited: answers.filter((r) => r.status === 429 && r.json.code === "RATE_LIMITED").length,
      other: answers.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.status),
    };
  }

  it("lets exactly the limit through from one address, and starts over in the next window", async () => {
    // Start at a window's beginning, so the burst does not straddle two windows.
    const windowMs = WINDOW_SECONDS * 1000;
    clock.offset += windowMs - (clock.now() % windowMs);
    const lookup = (url: string) => post(url, "/signer/v1/lookup", { email: "nobody@example.com" }, KEY);
    const first = await burst(200, lookup);
    expect(first).toEqual({ ok: LOOKUPS, limited: 200 - LOOKUPS, other: [] });

    // The count is spread over the shards, none past its room, and sums to the limit.
    const rows = await a.service.ctx.db
      .selectFrom("rate_limits")
      .select(["key", "count", "window_start"])
      .where("window_start", "=", clock.now() - (clock.now() % windowMs))
      .execute();
    const byLimit = new Map<string, number[]>();
    for (const r of rows) {
      const [hash, shard] = r.key.split("#");
      if (shard === undefined || hash === undefined) continue;
      byLimit.set(hash, [...(byLimit.get(hash) ?? []), r.count]);
    }
    const lookupShards = [...byLimit.values()].find(
      (counts) => counts.reduce((x, y) => x + y, 0) === LOOKUPS,
    );
    expect(lookupShards?.length).toBe(Math.min(LOOKUPS, SHARDS));
    expect(Math.max(...(lookupShards ?? []))).toBeLessThanOrEqual(Math.max(...shardRoom(LOOKUPS)));

    // Still refused until the window ends, whichever instance is asked.
    expect((await lookup(a.url)).status).toBe(429);
    expect((await lookup(b.url)).status).toBe(429);
    clock.offset += windowMs;
    const next = await burst(120, lookup);
    expect(next).toEqual({ ok: LOOKUPS, limited: 120 - LOOKUPS, other: [] });
  });

  it("lets exactly the limit of sign-ups through, counted with the mail limits", async () => {
    const tag = randomBytes(4).toString("hex");
    const signup = (url: string, i: number) =>
      post(
        url,
        "/signer/v1/signup",
        { email: `burst-${tag}-${i}@example.com`, targetPublicKey: targetKey().publicKey },
        KEY,
      );
    const result = await burst(40, signup);
    expect(result).toEqual({ ok: SIGNUPS, limited: 40 - SIGNUPS, other: [] });
    const users = await a.service.ctx.db
      .selectFrom("users")
      .select("id")
      .where("email", "like", `burst-${tag}-%`)
      .execute();
    expect(users.length).toBe(SIGNUPS);
  });
});
