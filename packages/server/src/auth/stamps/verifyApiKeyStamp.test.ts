import { ErrorCode, STAMP_MAX_AGE_MS, STAMP_MAX_FUTURE_MS, stampWithPrivateKey } from "@latchkey/protocol";
import { p256 } from "@noble/curves/nist";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServiceContext } from "../../context";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../../db/index";
import { assertFreshTimestamp } from "./freshness";
import { assertBodyUnused, bodyHash, consumeBody } from "./replayLedger";
import { verifyApiKeyStamp } from "./verifyApiKeyStamp";

const NOW = 1_800_000_000_000;

let opened: OpenedDatabase;
let db: Db;
let now = NOW;
const ctx = () =>
  ({ db, now: () => now, caches: { stampKeys: new Map() } }) as unknown as Pick<
    ServiceContext,
    "db" | "now" | "caches"
  >;
beforeEach(async () => {
  now = NOW;
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
  // The stamp check reads api_keys joined to users: the org and app rows they point to are no part of it.
  await sql`pragma foreign_keys = off`.execute(db);
});
afterEach(() => opened.close());

const code = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  return "no error";
};

describe("assertFreshTimestamp", () => {
  it("accepts the edges of the window, 5 minutes before and 1 minute after now", () => {
    expect(() => assertFreshTimestamp(String(NOW - STAMP_MAX_AGE_MS), NOW, "x")).not.toThrow();
    expect(() => assertFreshTimestamp(String(NOW + STAMP_MAX_FUTURE_MS), NOW, "x")).not.toThrow();
  });

  it("refuses one millisecond outside it, and a timestamp that is not digits", async () => {
    expect(await code(() => assertFreshTimestamp(String(NOW - STAMP_MAX_AGE_MS - 1), NOW, "x"))).toEqual({
      code: ErrorCode.STAMP_EXPIRED,
      message: "The request is too old",
    });
    expect(await code(() => assertFreshTimestamp(String(NOW + STAMP_MAX_FUTURE_MS + 1), NOW, "x"))).toEqual({
      code: ErrorCode.STAMP_IN_FUTURE,
      message: "The request's timestamp is in the future",
    });
    for (const bad of [NOW, undefined, "", "1e12", ` ${NOW}`, `${NOW} `, "12345678901234567", "-1"])
      expect(await code(() => assertFreshTimestamp(bad, NOW, "sign_raw_payload"))).toEqual({
        code: ErrorCode.INVALID_REQUEST,
        message: "timestampMs is required on sign_raw_payload",
      });
  });
});

describe("replay ledger", () => {
  it("keys on the SHA-256 of the body", () => {
    expect(bodyHash("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  });

  it("takes a body once, and refuses it after, until then and across checks", async () => {
    await assertBodyUnused(ctx(), "body-1");
    await consumeBody(ctx(), "body-1");
    const replayed = { code: ErrorCode.STAMP_REPLAYED, message: "This stamp was already used" };
    expect(await code(consumeBody(ctx(), "body-1"))).toEqual(replayed);
    expect(await code(assertBodyUnused(ctx(), "body-1"))).toEqual(replayed);
    await assertBodyUnused(ctx(), "body-2");
    await consumeBody(ctx(), "body-2");
    const rows = await db
      .selectFrom("stamp_replays")
      .selectAll()
      .where("hash", "=", bodyHash("body-1"))
      .execute();
    // Kept for as long as its timestamp could still pass the freshness window.
    expect(rows).toEqual([
      { hash: bodyHash("body-1"), expires_at: NOW + STAMP_MAX_AGE_MS + STAMP_MAX_FUTURE_MS },
    ]);
  });
});

describe("verifyApiKeyStamp", () => {
  const privateKey = p256.utils.randomPrivateKey();
  const publicKey = Buffer.from(p256.getPublicKey(privateKey, true)).toString("hex");
  const body = JSON.stringify({ organizationId: "org-1", timestampMs: String(NOW) });

  async function addKey(
    over: {
      expires_at?: number | null;
      revoked_at?: number | null;
      disabled_at?: number | null;
      id?: string;
    } = {},
  ) {
    const userId = `user-${over.id ?? "1"}`;
    await db
      .insertInto("users")
      .values({
        id: userId,
        org_id: `org-${userId}`,
        app_id: "app-1",
        email: `${userId}@example.com`,
        created_at: 1,
        disabled_at: over.disabled_at ?? null,
      })
      .execute();
    await db
      .insertInto("api_keys")
      .values({
        id: over.id ?? "key-1",
        org_id: `org-${userId}`,
        user_id: userId,
        name: "session",
        public_key: publicKey,
        kind: "session",
        expires_at: over.expires_at === undefined ? NOW + 1000 : over.expires_at,
        created_at: 1,
        revoked_at: over.revoked_at ?? null,
      })
      .execute();
  }
  const verify = (b = body, headerValue = stampWithPrivateKey(body, privateKey).stampHeaderValue) =>
    verifyApiKeyStamp(ctx(), { body: b, headerValue });

  it("returns the live key of a good stamp", async () => {
    await addKey();
    expect(await verify()).toMatchObject({
      id: "key-1",
      user_id: "user-1",
      org_id: "org-user-1",
      disabled_at: null,
    });
  });

  it("accepts a key without expiry", async () => {
    await addKey({ expires_at: null });
    expect(await verify()).toMatchObject({ id: "key-1" });
  });

  it("refuses a malformed or non-canonical header", async () => {
    await addKey();
    expect(await code(verify(body, "not a stamp"))).toEqual({
      code: ErrorCode.INVALID_STAMP,
      message: "The stamp is malformed",
    });
    const good = stampWithPrivateKey(body, privateKey).stampHeaderValue;
    expect(await code(verify(body, `${good}=`))).toMatchObject({ code: ErrorCode.STAMP_NOT_CANONICAL });
  });

  it("refuses an unknown or revoked key, a signature over another body, an expired key, a disabled user", async () => {
    expect(await code(verify())).toEqual({
      code: ErrorCode.INVALID_STAMP,
      message: "The stamp's key is unknown or revoked",
    });
    await addKey({ revoked_at: 5 });
    expect(await code(verify())).toMatchObject({ code: ErrorCode.INVALID_STAMP });
    await addKey({ id: "key-2", expires_at: NOW });
    expect(await code(verify(`${body} `))).toEqual({
      code: ErrorCode.INVALID_STAMP,
      message: "The stamp's signature does not match the body",
    });
    expect(await code(verify())).toEqual({
      code: ErrorCode.SESSION_EXPIRED,
      message: "The session has expired",
    });
    now = NOW - 1;
    expect(await verify()).toMatchObject({ id: "key-2" });
    await addKey({ id: "key-3", expires_at: null, disabled_at: 7 });
    now = NOW;
    expect(await code(verify())).toEqual({ code: ErrorCode.USER_DISABLED, message: "This user is disabled" });
  });
});
