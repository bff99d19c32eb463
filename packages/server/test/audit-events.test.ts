/**
 * A user's own security events (DESIGN §10, the audit log): `list_audit_events` answers the caller's
 * sign-ups, sign-ins and method changes, newest first, and nobody else's. Bad input is a 4xx with a
 * stable code. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { stampWithPrivateKey } from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmailUser, type Harness, post, signUpByEmail, startHarness, TEST_APP } from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const PATH = "/public/v1/query/list_audit_events";

describe.each(["sqlite", "postgres"] as const)("security events (%s)", (kind) => {
  let h: Harness;
  let ada: EmailUser;
  let bob: EmailUser;
  beforeAll(async () => {
    h = await startHarness(kind);
    const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
    ada = await signUpByEmail(h, unique("ada"), KEY);
    bob = await signUpByEmail(h, unique("bob"), KEY);
  });
  afterAll(async () => {
    await h?.close();
  });

  function query(user: EmailUser, body: Record<string, unknown>) {
    const text = JSON.stringify({
      type: "QUERY_TYPE_LIST_AUDIT_EVENTS",
      organizationId: user.orgId,
      ...body,
    });
    const { stampHeaderName, stampHeaderValue } = stampWithPrivateKey(text, user.sessionKey);
    return post(h.url, PATH, text, { [stampHeaderName]: stampHeaderValue });
  }

  type Event = { eventId: string; event: string; createdAt: { seconds: string }; details?: object };

  it("answers the caller's own events, newest first", async () => {
    const res = await query(ada, { userId: ada.userId });
    expect(res.status).toBe(200);
    const events = res.json.events as Event[];
    expect(events.map((e) => e.event)).toEqual(["user.signin", "user.signup"]);
    expect(events[0]?.details).toEqual({ method: "otp" });
    expect(Number(events[0]?.createdAt.seconds)).toBeGreaterThan(0);
    const ids = new Set(events.map((e) => e.eventId));
    const bobs = (await query(bob, { userId: bob.userId })).json.events as Event[];
    expect(bobs).toHaveLength(2);
    expect(bobs.some((e) => ids.has(e.eventId))).toBe(false);
  });

  it("a limit keeps the newest", async () => {
    const res = await query(ada, { userId: ada.userId, limit: 1 });
    expect((res.json.events as Event[]).map((e) => e.event)).toEqual(["user.signin"]);
  });

  it("another user's id is not found; bad input is a 400 with a stable code; nothing is written", async () => {
    const other = await query(ada, { userId: bob.userId });
    expect(other.status).toBe(404);
    expect(other.json.code).toBe("USER_NOT_FOUND");
    for (const body of [
      { userId: ada.userId, limit: 0 },
      { userId: ada.userId, limit: 101 },
      { userId: ada.userId, limit: "10" },
      {},
      { userId: "" },
    ]) {
      const res = await query(ada, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe("INVALID_REQUEST");
    }
    // A body naming another query is refused as such.
    const text = JSON.stringify({ type: "QUERY_TYPE_WHOAMI", organizationId: ada.orgId, userId: ada.userId });
    const { stampHeaderName, stampHeaderValue } = stampWithPrivateKey(text, ada.sessionKey);
    const wrong = await post(h.url, PATH, text, { [stampHeaderName]: stampHeaderValue });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
    // Reading wrote nothing: still the two events.
    expect(((await query(ada, { userId: ada.userId })).json.events as Event[]).length).toBe(2);
  });
});
