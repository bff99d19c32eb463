import { ErrorCode, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../db/index";
import type { SignedInBy } from "../db/schema";
import { passkeyCounts, requireFreshSignIn, spendStepUpToken, stepUpRequired } from "./stepUp";

const NOW = 1_800_000_000_000;
const SINCE = NOW - STEP_UP_MAX_AGE_MS;
const USER = { id: "u1", orgId: "o1", appId: "a1", email: "a@example.com" };

let opened: OpenedDatabase;
let db: Db;
const ctx = () => ({ db, now: () => NOW }) as unknown as Parameters<typeof requireFreshSignIn>[0];
beforeEach(async () => {
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
  // The rows below name an app and an organisation: their own rows are no part of the rule.
  await sql`pragma foreign_keys = off`.execute(db);
  await db
    .insertInto("users")
    .values({ id: USER.id, org_id: USER.orgId, app_id: USER.appId, email: USER.email, created_at: NOW })
    .execute();
});
afterEach(() => opened.close());

const session = (id: string, signedInBy: SignedInBy | null, createdAt: number) =>
  db
    .insertInto("api_keys")
    .values({
      id,
      org_id: USER.orgId,
      user_id: USER.id,
      name: "s",
      public_key: `02${id}`,
      kind: "session",
      signed_in_by: signedInBy,
      expires_at: null,
      created_at: createdAt,
      revoked_at: null,
    })
    .execute();
const passkey = (id: string, addedWith: string | null) =>
  db
    .insertInto("authenticators")
    .values({
      id,
      app_id: USER.appId,
      org_id: USER.orgId,
      user_id: USER.id,
      credential_id: id,
      public_key: "k",
      counter: 0,
      transports: "",
      aaguid: "",
      name: "p",
      added_with: addedWith,
      created_at: 1,
      last_used_at: null,
    })
    .execute();
const caller = (over: Partial<StampedCaller> = {}): StampedCaller => ({ user: USER, body: {}, ...over });
const check = (c: StampedCaller) => requireFreshSignIn(ctx(), { caller: c, appId: USER.appId, proof: {} });
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, data: (e as { data: unknown }).data };
  }
  throw new Error("not refused");
};

describe("requireFreshSignIn", () => {
  it("takes a passkey stamp by a passkey added with a step-up proof, and no other", async () => {
    await passkey("pk-proved", "email");
    await passkey("pk-plain", null);
    expect(await check(caller({ passkey: { authenticatorId: "pk-proved", credentialId: "c" } }))).toEqual({
      used: "passkey",
    });
    expect(await passkeyCounts(ctx(), "pk-plain")).toBe(false);
    expect(await passkeyCounts(ctx(), "pk-none")).toBe(false);
    // Even from a fresh session: a passkey stamp is decided by the passkey alone.
    await session("s1", "email_code", NOW);
    expect(
      await refusal(
        check(caller({ apiKeyId: "s1", passkey: { authenticatorId: "pk-plain", credentialId: "c" } })),
      ),
    ).toEqual({ code: ErrorCode.STEP_UP_REQUIRED, data: { stepUpMethods: ["email", "passkey"] } });
  });

  it("takes a session from an email-code, magic-link, passkey or TOTP sign-in within the window", async () => {
    for (const by of ["email_code", "magic_link", "passkey", "totp"] as const) {
      await session(`s-${by}`, by, SINCE);
      expect(await check(caller({ apiKeyId: `s-${by}` }))).toEqual({ used: "session" });
    }
    await session("s-old", "email_code", SINCE - 1);
    expect(await refusal(check(caller({ apiKeyId: "s-old" })))).toEqual({
      code: ErrorCode.STEP_UP_REQUIRED,
      data: { stepUpMethods: ["email"] },
    });
    await session("s-unknown", null, NOW);
    expect(await refusal(check(caller({ apiKeyId: "s-unknown" })))).toMatchObject({
      code: ErrorCode.STEP_UP_REQUIRED,
    });
    expect(await refusal(check(caller({ apiKeyId: "s-missing" })))).toMatchObject({
      code: ErrorCode.STEP_UP_REQUIRED,
    });
    expect(await refusal(check(caller()))).toMatchObject({ code: ErrorCode.STEP_UP_REQUIRED });
  });

  it("takes a social sign-in only as the sign-up's own session, while the account is young", async () => {
    await session("s-signup", "oauth", NOW);
    await session("s-later", "oauth", NOW);
    await db.updateTable("users").set({ signup_session_id: "s-signup" }).execute();
    expect(await check(caller({ apiKeyId: "s-signup" }))).toEqual({ used: "signup" });
    expect(await refusal(check(caller({ apiKeyId: "s-later" })))).toMatchObject({
      code: ErrorCode.STEP_UP_REQUIRED,
    });
    await db.updateTable("users").set({ created_at: SINCE }).execute();
    expect(await check(caller({ apiKeyId: "s-signup" }))).toEqual({ used: "signup" });
    await db
      .updateTable("users")
      .set({ created_at: SINCE - 1 })
      .execute();
    expect(await refusal(check(caller({ apiKeyId: "s-signup" })))).toMatchObject({
      code: ErrorCode.STEP_UP_REQUIRED,
    });
  });

  it("lists only the methods a step-up accepts for this user", async () => {
    const none = await stepUpRequired(ctx(), { ...USER, email: null });
    expect({ code: none.code, data: none.data }).toEqual({
      code: ErrorCode.STEP_UP_REQUIRED,
      data: { stepUpMethods: [] },
    });
    await db
      .insertInto("mfa_factors")
      .values({
        id: "f1",
        user_id: USER.id,
        type: "totp",
        sealed_secret: "x",
        verified_at: 1,
        last_step: 0,
        failed_attempts: 0,
        locked_until: null,
        added_with: "email",
        created_at: 1,
      } as never)
      .execute();
    await passkey("pk", "session");
    const e = await stepUpRequired(ctx(), USER);
    expect(e.message).toBe("This needs a fresh sign-in: confirm it's you");
    expect(e.data).toEqual({ stepUpMethods: ["email", "passkey", "totp"] });
  });
});

describe("spendStepUpToken", () => {
  it("spends a verification token once", async () => {
    await db
      .insertInto("contact_otps")
      .values({
        id: "otp-1",
        app_id: USER.appId,
        contact: USER.email,
        code_hash: "h",
        attempts: 0,
        expires_at: NOW + 1,
        used_at: NOW,
        token_used_at: null,
        created_at: NOW,
      })
      .execute();
    await spendStepUpToken(ctx(), "otp-1");
    expect(await db.selectFrom("contact_otps").select("token_used_at").executeTakeFirst()).toEqual({
      token_used_at: NOW,
    });
    await expect(spendStepUpToken(ctx(), "otp-1")).rejects.toMatchObject({
      code: ErrorCode.INVALID_VERIFICATION_TOKEN,
      message: "This verification token was already used",
    });
  });
});
