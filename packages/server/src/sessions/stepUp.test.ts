import { ErrorCode, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import { hotp, totpStep } from "../crypto/totp";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../db/index";
import type { SignedInBy } from "../db/schema";
import { issueVerificationToken } from "../otp/verificationToken";
import { passkeyCounts, requireFreshSignIn, spendStepUpToken, stepUpRequired } from "./stepUp";

const NOW = 1_800_000_000_000;
const SINCE = NOW - STEP_UP_MAX_AGE_MS;
const USER = { id: "u1", orgId: "o1", appId: "a1", email: "a@example.com" };

let opened: OpenedDatabase;
let db: Db;
const OTP_KEY = Buffer.alloc(32, 7);
const TOTP_SECRET = Buffer.alloc(20, 9);
// The keyring opens the factor's sealed secret (keyring.test.ts tests sealing itself): here the sealed
// text names the secret it stands for.
const keyring = {
  open: async (sealed: string, aad: string) => {
    if (sealed !== "sealed-totp" || !aad.startsWith("mfa_factor:")) throw new Error("does not open");
    return new Uint8Array(TOTP_SECRET);
  },
};
const ctx = () =>
  ({ db, now: () => NOW, otpKey: OTP_KEY, keyring }) as unknown as Parameters<typeof requireFreshSignIn>[0];
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
    // A factor or passkey added without a step-up proof is no step-up method.
    await db
      .insertInto("mfa_factors")
      .values({
        id: "f-plain",
        user_id: USER.id,
        type: "totp",
        sealed_secret: "x",
        verified_at: 1,
        last_step: 0,
        failed_attempts: 0,
        locked_until: null,
        added_with: null,
        created_at: 1,
      } as never)
      .execute();
    await passkey("pk-plain", null);
    expect((await stepUpRequired(ctx(), USER)).data).toEqual({ stepUpMethods: ["email"] });
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

describe("requireFreshSignIn with a proof", () => {
  const factor = (id: string, over: { verified_at?: number | null; added_with?: string | null } = {}) =>
    db
      .insertInto("mfa_factors")
      .values({
        id,
        user_id: USER.id,
        type: "totp",
        sealed_secret: "sealed-totp",
        verified_at: "verified_at" in over ? (over.verified_at ?? null) : NOW - 1000,
        last_step: 0,
        failed_attempts: 0,
        locked_until: null,
        added_with: "added_with" in over ? (over.added_with ?? null) : "email",
        created_at: NOW - 1000,
      })
      .execute();
  const code = () => hotp(TOTP_SECRET, totpStep(NOW));
  const withProof = (proof: Parameters<typeof requireFreshSignIn>[1]["proof"], c = caller()) =>
    requireFreshSignIn(ctx(), { caller: c, appId: USER.appId, proof });

  it("takes a right code of a verified factor added with a step-up proof, once; not a factor without one", async () => {
    await factor("f1");
    expect(await withProof({ multiFactor: { multiFactorId: "f1", multiFactorCode: code() } })).toEqual({
      used: "totp",
    });
    // The same code again, a wrong code: refused, and the old session does not rescue them.
    expect(
      await refusal(withProof({ multiFactor: { multiFactorId: "f1", multiFactorCode: code() } })),
    ).toMatchObject({ code: ErrorCode.INVALID_MFA_CODE });
    await factor("f-plain", { added_with: null });
    await factor("f-unverified", { verified_at: null });
    for (const id of ["f-plain", "f-unverified", "f-missing"]) {
      expect(
        await refusal(withProof({ multiFactor: { multiFactorId: id, multiFactorCode: code() } })),
        id,
      ).toMatchObject({
        code: ErrorCode.MFA_FACTOR_NOT_FOUND,
      });
    }
  });

  const otp = (id: string, usedAt: number | null, tokenUsedAt: number | null = null) =>
    db
      .insertInto("contact_otps")
      .values({
        id,
        app_id: USER.appId,
        contact: USER.email,
        code_hash: "h",
        attempts: 0,
        expires_at: NOW + 1,
        used_at: usedAt,
        token_used_at: tokenUsedAt,
        created_at: NOW,
      })
      .execute();
  const token = (otpId: string, contact = USER.email, appId = USER.appId) =>
    issueVerificationToken({ otpKey: OTP_KEY, now: () => NOW } as never, { appId, contact, otpId });

  it("takes a verification token of the account's email from a code verified within the window, to spend", async () => {
    await otp("otp-fresh", SINCE);
    expect(await withProof({ verificationToken: await token("otp-fresh") })).toEqual({
      spendOtpId: "otp-fresh",
      used: "email",
    });
    // Nothing is spent yet: the caller spends it in its own transaction.
    expect(
      await db
        .selectFrom("contact_otps")
        .select("token_used_at")
        .where("id", "=", "otp-fresh")
        .executeTakeFirst(),
    ).toEqual({
      token_used_at: null,
    });
  });

  it("refuses a token of another email, another app, a spent or unknown code, and asks again for an old one", async () => {
    await otp("otp-1", NOW);
    const wrong = async (t: Promise<string>, c = caller()) =>
      refusal(withProof({ verificationToken: await t }, c));
    expect(await wrong(token("otp-1", "b@example.com"))).toMatchObject({
      code: ErrorCode.INVALID_VERIFICATION_TOKEN,
    });
    expect(await wrong(token("otp-1"), caller({ user: { ...USER, email: null } }))).toMatchObject({
      code: ErrorCode.INVALID_VERIFICATION_TOKEN,
    });
    expect(await wrong(token("otp-1", USER.email, "another-app"))).toMatchObject({
      code: ErrorCode.INVALID_VERIFICATION_TOKEN,
    });
    expect(await wrong(token("otp-unknown"))).toMatchObject({ code: ErrorCode.INVALID_VERIFICATION_TOKEN });
    await otp("otp-spent", NOW, NOW);
    const spent = await withProof({ verificationToken: await token("otp-spent") }).catch((e: Error) => e);
    expect(spent).toMatchObject({
      code: ErrorCode.INVALID_VERIFICATION_TOKEN,
      message: "This verification token was already used",
    });
    await otp("otp-old", SINCE - 1);
    expect(await wrong(token("otp-old"))).toEqual({
      code: ErrorCode.STEP_UP_REQUIRED,
      data: { stepUpMethods: ["email"] },
    });
    await otp("otp-unverified", null);
    expect(await wrong(token("otp-unverified"))).toMatchObject({ code: ErrorCode.STEP_UP_REQUIRED });
    const other = await withProof({ verificationToken: await token("otp-1", "b@example.com") }).catch(
      (e: Error) => e,
    );
    expect((other as Error).message).toBe("The verification token is not for this account's email");
  });

  it("a passkey stamp is decided before any proof; a proof before the session", async () => {
    await passkey("pk-plain", null);
    await factor("f1");
    expect(
      await refusal(
        withProof(
          { multiFactor: { multiFactorId: "f1", multiFactorCode: code() } },
          caller({ passkey: { authenticatorId: "pk-plain", credentialId: "c" } }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.STEP_UP_REQUIRED });
    await session("s-fresh", "email_code", NOW);
    expect(
      await refusal(
        withProof(
          { multiFactor: { multiFactorId: "f1", multiFactorCode: "000000" } },
          caller({ apiKeyId: "s-fresh" }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.INVALID_MFA_CODE });
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
