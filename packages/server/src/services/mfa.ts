import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from "node:crypto";
import { ErrorCode, INVALID_MFA_MESSAGE, MFA_REQUIRED_MESSAGE, type MultiFactor } from "@latchkey/protocol";
import { matchTotp, newTotpSecret, otpauthUrl } from "../crypto/totp";
import type { Db } from "../db";
import { ApiError, notFound } from "../errors";
import type { ServiceContext } from "../service";
import type { App } from "./apps";
import { issueSession } from "./sessions";
import { findUserByOrg, type UserRecord } from "./users";

type MfaContext = Pick<ServiceContext, "db" | "keyring" | "now" | "audit">;

/** Wrong codes in a row before a factor is locked, and for how long. */
export const MFA_MAX_FAILURES = 5;
export const MFA_LOCK_MS = 5 * 60 * 1000;
/** How long an MFA_REQUIRED payload may be redeemed. */
export const MFA_PAYLOAD_TTL_MS = 5 * 60 * 1000;

export async function listFactors(db: Db, userId: string, verifiedOnly = true): Promise<MultiFactor[]> {
  let q = db.selectFrom("mfa_factors").select(["id", "type"]).where("user_id", "=", userId);
  if (verifiedOnly) q = q.where("verified_at", "is not", null);
  const rows = await q.orderBy("created_at").execute();
  return rows.map((r) => ({ multiFactorId: r.id, multiFactorType: r.type }));
}

/** Starts a TOTP factor: a 160-bit secret, sealed at rest; it counts once a first code verifies it. */
export async function requestTotp(ctx: MfaContext, app: App, user: UserRecord) {
  const now = ctx.now();
  // Only one unverified factor at a time: asking again replaces it.
  await ctx.db
    .deleteFrom("mfa_factors")
    .where("user_id", "=", user.id)
    .where("verified_at", "is", null)
    .execute();
  const id = randomUUID();
  const secret = newTotpSecret();
  await ctx.db
    .insertInto("mfa_factors")
    .values({
      id,
      user_id: user.id,
      type: "totp",
      sealed_secret: ctx.keyring.seal(secret, `mfa_factor:${id}`),
      verified_at: null,
      last_step: 0,
      failed_attempts: 0,
      locked_until: null,
      created_at: now,
    })
    .execute();
  const url = otpauthUrl({ secret, issuer: app.name, account: user.email ?? user.id });
  secret.fill(0);
  await ctx.audit("mfa.requested", { appId: app.id, userId: user.id });
  return { multiFactorType: "totp" as const, multiFactorId: id, multiFactorTotpUrl: url };
}

/**
 * Checks one code against one factor: locked factors refuse, a wrong code counts (five lock the factor),
 * a right code moves `last_step` forward atomically so the same code can never be used again.
 */
export async function checkFactorCode(
  ctx: MfaContext,
  userId: string,
  factorId: string,
  code: string,
  opts: { allowUnverified?: boolean } = {},
): Promise<void> {
  const now = ctx.now();
  const factor = await ctx.db
    .selectFrom("mfa_factors")
    .selectAll()
    .where("id", "=", factorId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!factor || (!opts.allowUnverified && factor.verified_at === null)) {
    throw notFound("MFA factor not found", ErrorCode.MFA_FACTOR_NOT_FOUND);
  }
  if (factor.locked_until !== null && factor.locked_until > now) {
    const retry = Math.ceil((factor.locked_until - now) / 1000);
    throw new ApiError(
      429,
      ErrorCode.MFA_LOCKED,
      "Too many wrong codes. Try again later.",
      { retryAfterSeconds: retry },
      {
        "retry-after": String(retry),
      },
    );
  }
  const secret = await ctx.keyring.open(factor.sealed_secret, `mfa_factor:${factor.id}`);
  const step = matchTotp(secret, code, now, factor.last_step);
  secret.fill(0);
  if (step === null) {
    const failures = factor.failed_attempts + 1;
    await ctx.db
      .updateTable("mfa_factors")
      .set({
        failed_attempts: failures >= MFA_MAX_FAILURES ? 0 : failures,
        locked_until: failures >= MFA_MAX_FAILURES ? now + MFA_LOCK_MS : null,
      })
      .where("id", "=", factor.id)
      .execute();
    throw new ApiError(400, ErrorCode.INVALID_MFA_CODE, INVALID_MFA_MESSAGE);
  }
  const moved = await ctx.db
    .updateTable("mfa_factors")
    .set({
      last_step: step,
      failed_attempts: 0,
      locked_until: null,
      ...(factor.verified_at === null ? { verified_at: now } : {}),
    })
    .where("id", "=", factor.id)
    .where("last_step", "<", step)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1)
    throw new ApiError(400, ErrorCode.INVALID_MFA_CODE, INVALID_MFA_MESSAGE);
}

/** Every verified factor of the user must be answered by a right code. */
export async function checkAllFactors(
  ctx: MfaContext,
  userId: string,
  given: { multiFactorId: string; multiFactorCode: string }[],
): Promise<void> {
  const factors = await listFactors(ctx.db, userId);
  for (const f of factors) {
    const answer = given.find((g) => g.multiFactorId === f.multiFactorId);
    if (!answer) throw mfaRequired(factors);
    await checkFactorCode(ctx, userId, f.multiFactorId, answer.multiFactorCode);
  }
}

export function mfaRequired(factors: MultiFactor[]): ApiError {
  return new ApiError(401, ErrorCode.MFA_REQUIRED, MFA_REQUIRED_MESSAGE, { multiFactors: factors });
}

// ---- the pending sign-in between the email code and the second factor ----

interface PendingSignIn {
  cid: string;
  uid: string;
  app: string;
  tpk: string;
  exp?: number;
  until: number;
}

function payloadKey(ctx: MfaContext): Buffer {
  return ctx.keyring.deriveKey("mfa-payload");
}

/** Seals what the service needs to finish the sign-in, for itself only, single use and short-lived. */
export async function createPendingSignIn(
  ctx: MfaContext,
  app: App,
  user: UserRecord,
  targetPublicKey: string,
  expirationSeconds: number | undefined,
): Promise<string> {
  const now = ctx.now();
  const cid = randomUUID();
  await ctx.db
    .insertInto("mfa_challenges")
    .values({
      id: cid,
      user_id: user.id,
      expires_at: now + MFA_PAYLOAD_TTL_MS,
      used_at: null,
      created_at: now,
    })
    .execute();
  const pending: PendingSignIn = {
    cid,
    uid: user.id,
    app: app.id,
    tpk: targetPublicKey,
    until: now + MFA_PAYLOAD_TTL_MS,
    ...(expirationSeconds ? { exp: expirationSeconds } : {}),
  };
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", payloadKey(ctx), iv);
  cipher.setAAD(Buffer.from("latchkey-mfa-payload"));
  const ct = Buffer.concat([cipher.update(JSON.stringify(pending)), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([iv, ct]).toString("base64url");
}

function openPending(ctx: MfaContext, payload: string): PendingSignIn {
  try {
    const raw = Buffer.from(payload, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", payloadKey(ctx), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from("latchkey-mfa-payload"));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([
      decipher.update(raw.subarray(12, raw.length - 16)),
      decipher.final(),
    ]).toString("utf8");
    return JSON.parse(text) as PendingSignIn;
  } catch {
    throw new ApiError(400, ErrorCode.INVALID_MFA_PAYLOAD, "The sign-in to complete is invalid; start again");
  }
}

/** Redeems an MFA_REQUIRED payload with the factor codes: the pending sign-in becomes a session bundle. */
export async function validateMultiFactors(
  ctx: MfaContext,
  app: App,
  payload: string,
  given: { multiFactorId: string; multiFactorCode: string }[],
  ip: string,
): Promise<{ payload: { credentialBundle: string }; multiFactors: MultiFactor[] }> {
  const pending = openPending(ctx, payload);
  const now = ctx.now();
  if (pending.app !== app.id)
    throw new ApiError(400, ErrorCode.INVALID_MFA_PAYLOAD, "The sign-in to complete is invalid; start again");
  if (pending.until <= now)
    throw new ApiError(
      400,
      ErrorCode.INVALID_MFA_PAYLOAD,
      "The sign-in to complete has expired; start again",
    );
  const challenge = await ctx.db
    .selectFrom("mfa_challenges")
    .selectAll()
    .where("id", "=", pending.cid)
    .executeTakeFirst();
  if (!challenge || challenge.used_at !== null) {
    throw new ApiError(400, ErrorCode.INVALID_MFA_PAYLOAD, "This sign-in was already completed; start again");
  }
  await checkAllFactors(ctx, pending.uid, given);
  const user = await ctx.db
    .selectFrom("users")
    .select(["org_id"])
    .where("id", "=", pending.uid)
    .executeTakeFirst();
  const record = user ? await findUserByOrg(ctx.db, user.org_id) : null;
  if (!record)
    throw new ApiError(400, ErrorCode.INVALID_MFA_PAYLOAD, "The sign-in to complete is invalid; start again");
  const bundle = await ctx.db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable("mfa_challenges")
      .set({ used_at: now })
      .where("id", "=", pending.cid)
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) {
      throw new ApiError(
        400,
        ErrorCode.INVALID_MFA_PAYLOAD,
        "This sign-in was already completed; start again",
      );
    }
    return (await issueSession(trx, record, pending.tpk, pending.exp, now, "otp-mfa")).credentialBundle;
  });
  await ctx.audit("user.signin", { appId: app.id, userId: record.id, ip, details: { method: "otp+totp" } });
  return { payload: { credentialBundle: bundle }, multiFactors: await listFactors(ctx.db, record.id) };
}

export async function deleteFactors(
  ctx: MfaContext,
  user: UserRecord,
  ids: string[],
): Promise<MultiFactor[]> {
  const mine = await ctx.db.selectFrom("mfa_factors").select("id").where("user_id", "=", user.id).execute();
  const have = new Set(mine.map((m) => m.id));
  if (!ids.every((id) => have.has(id)))
    throw notFound("MFA factor not found", ErrorCode.MFA_FACTOR_NOT_FOUND);
  await ctx.db.deleteFrom("mfa_factors").where("user_id", "=", user.id).where("id", "in", ids).execute();
  await ctx.audit("mfa.removed", { appId: user.appId, userId: user.id });
  return listFactors(ctx.db, user.id);
}
