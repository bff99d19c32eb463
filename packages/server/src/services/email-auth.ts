import { createHmac, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import {
  type AuthResponse,
  type authRequestSchema,
  ErrorCode,
  type emailSignupRequestSchema,
  INVALID_OTP_MESSAGE,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MS,
  type OtpResponse,
  type otpRequestSchema,
  type SignupResponse,
} from "@latchkey/protocol";
import type { z } from "zod";
import type { RateLimits } from "../config";
import type { Keyring } from "../crypto/keyring";
import type { DerivedAccount } from "../crypto/wallet";
import type { Db } from "../db";
import { ApiError } from "../errors";
import type { Mailer } from "../mail/mailer";
import { type Mail, magicLinkMail, otpMail } from "../mail/templates";
import type { App } from "./apps";
import { checkAllFactors, createPendingSignIn, listFactors, mfaRequired } from "./mfa";
import { hit } from "./ratelimit";
import { issueSession } from "./sessions";
import { findUserByEmail, findUserByOrg, insertUser, prepareUser, type UserRecord } from "./users";

export interface EmailAuthContext {
  db: Db;
  keyring: Keyring;
  mailer: Mailer;
  limits: RateLimits;
  now: () => number;
  otpKey: Buffer;
  wallets: { derive(mnemonic: string): Promise<DerivedAccount[]> };
  audit(
    event: string,
    fields: { appId?: string; userId?: string; ip?: string; details?: object },
    db?: Db,
  ): Promise<void>;
}

type Signup = z.output<typeof emailSignupRequestSchema>;
type Auth = z.output<typeof authRequestSchema>;
type Otp = z.output<typeof otpRequestSchema>;

export function otpCodeHash(key: Buffer, otpId: string, code: string): string {
  return createHmac("sha256", key).update(`${otpId}:${code}`).digest("hex");
}

/**
 * Stores a new email code (only its HMAC) and returns its id with the mail that carries it; the caller
 * sends the mail once its transaction has committed.
 */
export async function createEmailOtp(
  ctx: Pick<EmailAuthContext, "db" | "otpKey">,
  app: App,
  user: UserRecord,
  email: string,
  now: number,
): Promise<{ otpId: string; mail: Mail }> {
  const otpId = randomUUID();
  const code = newOtpCode();
  await ctx.db
    .insertInto("otps")
    .values({
      id: otpId,
      app_id: app.id,
      org_id: user.orgId,
      user_id: user.id,
      email,
      code_hash: otpCodeHash(ctx.otpKey, otpId, code),
      attempts: 0,
      expires_at: now + OTP_TTL_MS,
      used_at: null,
      created_at: now,
    })
    .execute();
  return { otpId, mail: otpMail({ to: email, appName: app.name, code, ttlMinutes: OTP_TTL_MS / 60_000 }) };
}

/** A 6-digit code, uniform over 000000–999999, from the CSPRNG. */
export function newOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

function resolveMode(app: App, requested: "magicLink" | "otp" | undefined): "magicLink" | "otp" {
  return requested ?? (app.emailMode === "MAGIC_LINK" ? "magicLink" : "otp");
}

/** The magic link's target: a URL on the app's allow-list (same origin and path), else its first entry. */
export function magicLinkTarget(app: App, requested: string | undefined): URL {
  if (app.magicLinkRedirectUrls.length === 0) {
    throw new ApiError(
      400,
      ErrorCode.INVALID_REDIRECT_URL,
      "This app has no magic-link redirect URL configured",
    );
  }
  if (!requested) return new URL(app.magicLinkRedirectUrls[0] as string);
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    throw new ApiError(400, ErrorCode.INVALID_REDIRECT_URL, "redirectUrl is not a valid URL");
  }
  const ok = app.magicLinkRedirectUrls.some((allowed) => {
    const a = new URL(allowed);
    return a.origin === url.origin && a.pathname === url.pathname;
  });
  if (!ok)
    throw new ApiError(400, ErrorCode.INVALID_REDIRECT_URL, "redirectUrl is not on this app's allow-list");
  return url;
}

async function throttleMail(ctx: EmailAuthContext, email: string, ip: string) {
  const { limits } = ctx;
  const now = ctx.now();
  await hit(
    ctx.db,
    `mail-ip:${ip}`,
    limits.mailsPerIp,
    limits.windowSeconds,
    now,
    "Too many sign-in emails from this network. Try again later.",
  );
  await hit(
    ctx.db,
    `mail-email:${email}`,
    limits.mailsPerEmail,
    limits.windowSeconds,
    now,
    "Too many sign-in emails to this address. Try again later.",
  );
}

async function startEmailChallenge(
  ctx: EmailAuthContext,
  app: App,
  user: UserRecord,
  email: string,
  req: {
    emailMode?: "magicLink" | "otp";
    targetPublicKey: string;
    expirationSeconds?: number;
    redirectParams?: string;
    redirectUrl?: string;
  },
): Promise<{ otpId?: string; mail: Mail }> {
  const mode = resolveMode(app, req.emailMode);
  const now = ctx.now();
  if (mode === "otp") return createEmailOtp(ctx, app, user, email, now);
  // Magic link: the link carries a session bundle sealed to this browser's target key, so opening it
  // elsewhere (or a scanner prefetching it) neither works nor consumes anything.
  const target = magicLinkTarget(app, req.redirectUrl);
  const session = await issueSession(
    ctx.db,
    user,
    req.targetPublicKey,
    req.expirationSeconds,
    now,
    "magic-link",
  );
  if (req.redirectParams) {
    for (const [k, v] of new URLSearchParams(req.redirectParams)) {
      if (k !== "bundle" && k !== "orgId") target.searchParams.set(k, v);
    }
  }
  target.searchParams.set("bundle", session.credentialBundle);
  target.searchParams.set("orgId", user.orgId);
  const ttl = Math.round((session.expiresAt - now) / 60_000);
  return { mail: magicLinkMail({ to: email, appName: app.name, link: target.toString(), ttlMinutes: ttl }) };
}

export async function signupWithEmail(
  ctx: EmailAuthContext,
  app: App,
  req: Signup,
  ip: string,
): Promise<SignupResponse> {
  if (resolveMode(app, req.emailMode) === "magicLink") magicLinkTarget(app, req.redirectUrl);
  await throttleMail(ctx, req.email, ip);
  if (await findUserByEmail(ctx.db, app.id, req.email)) {
    throw new ApiError(409, ErrorCode.USER_EXISTS, "A user with this email already exists; sign in instead");
  }
  const prepared = await prepareUser(ctx.keyring, app.id, req.email, ctx.now(), null, ctx.wallets.derive);
  let challenge: { otpId?: string; mail: Mail };
  let user: Awaited<ReturnType<typeof insertUser>>;
  try {
    // One transaction: a user is created with its wallet and its first code, or not at all.
    ({ user, challenge } = await ctx.db.transaction().execute(async (trx) => {
      const u = await insertUser(trx, prepared);
      const c = await startEmailChallenge({ ...ctx, db: trx }, app, u, req.email, req);
      await ctx.audit("user.signup", { appId: app.id, userId: u.id, ip, details: { method: "email" } }, trx);
      return { user: u, challenge: c };
    }));
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new ApiError(
        409,
        ErrorCode.USER_EXISTS,
        "A user with this email already exists; sign in instead",
      );
    }
    throw e;
  }
  // Mail goes out once the user exists for sure.
  ctx.mailer.send(challenge.mail);
  return {
    orgId: user.orgId,
    userId: user.id,
    address: user.address,
    solanaAddress: user.solanaAddress,
    ...(challenge.otpId ? { otpId: challenge.otpId } : {}),
  };
}

export async function authWithEmail(
  ctx: EmailAuthContext,
  app: App,
  req: Auth,
  ip: string,
): Promise<AuthResponse> {
  if (resolveMode(app, req.emailMode) === "magicLink") magicLinkTarget(app, req.redirectUrl);
  await throttleMail(ctx, req.email, ip);
  const user = await findUserByEmail(ctx.db, app.id, req.email);
  if (!user) throw new ApiError(404, ErrorCode.USER_NOT_FOUND, "No user with this email; sign up first");
  // A magic link is a session by itself, so a second factor is asked for before it is mailed.
  if (resolveMode(app, req.emailMode) === "magicLink") {
    const factors = await listFactors(ctx.db, user.id);
    if (factors.length > 0) {
      if (!req.multiFactors?.length) throw mfaRequired(factors);
      await checkAllFactors(ctx, user.id, req.multiFactors);
    }
  }
  const challenge = await startEmailChallenge(ctx, app, user, req.email, req);
  ctx.mailer.send(challenge.mail);
  return { orgId: user.orgId, ...(challenge.otpId ? { otpId: challenge.otpId } : {}) };
}

/**
 * Checks a code: wrong codes count against the code (5 burn it), the right one is consumed atomically,
 * so two racing submissions can never both succeed.
 */
export async function verifyEmailOtp(
  ctx: EmailAuthContext,
  app: App,
  req: Otp,
  ip: string,
): Promise<OtpResponse> {
  const now = ctx.now();
  await hit(
    ctx.db,
    `otp-ip:${ip}`,
    ctx.limits.otpAttemptsPerIp,
    ctx.limits.windowSeconds,
    now,
    "Too many code attempts from this network. Try again later.",
  );
  const otp = await ctx.db.selectFrom("otps").selectAll().where("id", "=", req.otpId).executeTakeFirst();
  if (!otp || otp.app_id !== app.id || otp.org_id !== req.orgId) {
    throw new ApiError(400, ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
  }
  if (otp.used_at !== null) {
    if (otp.attempts >= OTP_MAX_ATTEMPTS) {
      throw new ApiError(400, ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code");
    }
    throw new ApiError(400, ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
  }
  if (otp.expires_at <= now)
    throw new ApiError(400, ErrorCode.OTP_EXPIRED, "This code has expired; request a new code");

  const expected = Buffer.from(otp.code_hash, "hex");
  const actual = Buffer.from(otpCodeHash(ctx.otpKey, otp.id, req.otpCode), "hex");
  if (!timingSafeEqual(expected, actual)) {
    const updated = await ctx.db
      .updateTable("otps")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .where("attempts", "<", OTP_MAX_ATTEMPTS)
      .returning("attempts")
      .executeTakeFirst();
    if (!updated || updated.attempts >= OTP_MAX_ATTEMPTS) {
      await ctx.db
        .updateTable("otps")
        .set({ used_at: now })
        .where("id", "=", otp.id)
        .where("used_at", "is", null)
        .execute();
      await ctx.audit("otp.burned", { appId: app.id, userId: otp.user_id, ip });
      if (updated) throw new ApiError(400, ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
      throw new ApiError(400, ErrorCode.OTP_ATTEMPTS_EXCEEDED, "Too many wrong codes; request a new code");
    }
    throw new ApiError(400, ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
  }
  const user = await findUserByOrg(ctx.db, otp.org_id);
  if (!user) throw new ApiError(400, ErrorCode.INVALID_OTP, INVALID_OTP_MESSAGE);
  const factors = await listFactors(ctx.db, user.id);
  if (factors.length > 0 && req.multiFactors?.length) await checkAllFactors(ctx, user.id, req.multiFactors);
  const needsFactor = factors.length > 0 && !req.multiFactors?.length;
  const bundle = await ctx.db.transaction().execute(async (trx) => {
    const consumed = await trx
      .updateTable("otps")
      .set({ used_at: now })
      .where("id", "=", otp.id)
      .where("used_at", "is", null)
      .where("attempts", "<", OTP_MAX_ATTEMPTS)
      .executeTakeFirst();
    if (Number(consumed.numUpdatedRows) !== 1) {
      throw new ApiError(400, ErrorCode.OTP_ALREADY_USED, "This code was already used; request a new code");
    }
    if (needsFactor) return null;
    const session = await issueSession(trx, user, req.targetPublicKey, req.expirationSeconds, now, "otp");
    return session.credentialBundle;
  });
  if (bundle === null) {
    // The email code is spent; what remains is sealed for the service itself until the factor is given.
    const encryptedPayload = await createPendingSignIn(
      ctx,
      app,
      user,
      req.targetPublicKey,
      req.expirationSeconds,
    );
    return { status: "MFA_REQUIRED", encryptedPayload, multiFactors: factors };
  }
  await ctx.audit("user.signin", { appId: app.id, userId: user.id, ip, details: { method: "otp" } });
  return { status: "SUCCESS", credentialBundle: bundle };
}

export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (
    err?.code === "23505" ||
    err?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    /UNIQUE constraint failed/.test(err?.message ?? "")
  );
}
