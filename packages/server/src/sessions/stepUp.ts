import { ErrorCode, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../context";
import type { SignedInBy } from "../db/schema";
import { apiError } from "../errors";
import { checkFactorCode } from "../features/mfa/checkFactorCode";
import { listFactors } from "../features/mfa/factorStore";
import { readVerificationToken } from "../otp/verificationToken";

/** The ways a user can prove a fresh sign-in, as `STEP_UP_REQUIRED`'s `data.stepUpMethods` lists them. */
export type StepUpMethod = "email" | "passkey" | "totp";

/**
 * Which proof a step-up accepted: a method's own, or `session` (the stamping session is a fresh
 * sign-in). Audit entries name it, and a passkey or factor added under it keeps it (`added_with`).
 */
export type StepUpProofUsed = StepUpMethod | "session" | "signup";

/** Sessions that count as a fresh sign-in while young: a social sign-in proves nothing about this device. */
const FRESH_SIGN_INS: ReadonlySet<SignedInBy> = new Set(["email_code", "magic_link", "passkey", "totp"]);

type StepUpContext = Pick<ServiceContext, "db" | "now" | "otpKey" | "keyring" | "random" | "audit">;

export interface StepUpProof {
  /** A verification token from `/v1/verify-otp` for the user's current email. */
  verificationToken?: string | undefined;
  /** A code of one of the user's authenticator-app factors (one added with a step-up proof). */
  multiFactor?: { multiFactorId: string; multiFactorCode: string } | undefined;
}

/**
 * Checks that `caller` signed in within `STEP_UP_MAX_AGE_MS` — the one rule for exporting the wallet and
 * for changing how the user signs in (adding or removing a second factor, adding a passkey or a social
 * sign-in, changing the email) — by the first of:
 *  1. the request is passkey-stamped (a user presence for this very body) by a passkey that was itself
 *     added with a step-up proof (or created the user);
 *  2. `multiFactor` is a right code of a verified authenticator-app factor that was added with a step-up
 *     proof (counted like any MFA code: five wrong ones lock the factor, a code is accepted once); a
 *     factor being added is not one;
 *  3. `verificationToken` proves the user's current email by a code verified within the window; it is
 *     answered as `spendOtpId`, which the caller spends in its transaction (single use);
 *  4. the stamping session was issued by an email-code, magic-link, passkey or TOTP sign-in within the window;
 *  5. or is the session the social sign-up that made the account gave (`users.signup_session_id`), within
 *     the window (`signup`): the account is that person's own and minutes old, so they can add a passkey
 *     right after signing up (the spec's offer). A later social sign-in to it never counts, so a passkey
 *     or factor recorded as added under `signup` was added by that session.
 * Otherwise STEP_UP_REQUIRED (403) with `data.stepUpMethods`: what the user can re-authenticate with.
 * Answers which proof it took (`used`), for the audit entry and for a method added under it.
 *
 * @example
 * const { spendOtpId, used } = await requireFreshSignIn(ctx, { caller, appId, proof: params });
 */
export async function requireFreshSignIn(
  ctx: StepUpContext,
  params: { caller: StampedCaller; appId: string; proof: StepUpProof },
): Promise<{ spendOtpId?: string; used: StepUpProofUsed }> {
  const { caller, proof } = params;
  const user = caller.user;
  const since = ctx.now() - STEP_UP_MAX_AGE_MS;
  // 1.
  if (caller.passkey) {
    if (await passkeyCounts(ctx, caller.passkey.authenticatorId)) return { used: "passkey" };
    throw await stepUpRequired(ctx, user);
  }
  // 2.
  if (proof.multiFactor) {
    await checkFactorCode(ctx, {
      userId: user.id,
      factorId: proof.multiFactor.multiFactorId,
      code: proof.multiFactor.multiFactorCode,
      stepUp: true,
    });
    return { used: "totp" };
  }
  // 3.
  if (proof.verificationToken) {
    const proven = await readVerificationToken(ctx, { appId: params.appId, token: proof.verificationToken });
    if (!user.email || proven.contact !== user.email)
      throw apiError(
        ErrorCode.INVALID_VERIFICATION_TOKEN,
        "The verification token is not for this account's email",
      );
    const otp = await ctx.db
      .selectFrom("contact_otps")
      .select(["used_at", "token_used_at"])
      .where("id", "=", proven.otpId)
      .executeTakeFirst();
    if (!otp || otp.token_used_at !== null)
      throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "This verification token was already used");
    if (otp.used_at === null || otp.used_at < since) throw await stepUpRequired(ctx, user);
    return { spendOtpId: proven.otpId, used: "email" };
  }
  // 4.
  if (caller.apiKeyId) {
    const session = await ctx.db
      .selectFrom("api_keys")
      .select(["signed_in_by", "created_at"])
      .where("id", "=", caller.apiKeyId)
      .executeTakeFirst();
    if (session?.signed_in_by && session.created_at >= since) {
      if (FRESH_SIGN_INS.has(session.signed_in_by)) return { used: "session" };
      // 5. Only the sign-up's own session: a later social sign-in to the account is no proof, even while
      // it is minutes old (the provider's account may be someone else's by then).
      const account = await ctx.db
        .selectFrom("users")
        .select(["created_at", "signup_session_id"])
        .where("id", "=", user.id)
        .executeTakeFirst();
      if (
        session.signed_in_by === "oauth" &&
        account?.signup_session_id === caller.apiKeyId &&
        account.created_at >= since
      )
        return { used: "signup" };
    }
  }
  throw await stepUpRequired(ctx, user);
}

/** Spends the verification token `requireFreshSignIn` accepted; in the transaction of the change it allows. */
export async function spendStepUpToken(
  ctx: Pick<ServiceContext, "db" | "now">,
  otpId: string,
): Promise<void> {
  const spent = await ctx.db
    .updateTable("contact_otps")
    .set({ token_used_at: ctx.now() })
    .where("id", "=", otpId)
    .where("token_used_at", "is", null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1)
    throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "This verification token was already used");
}

/** A passkey counts as a step-up proof when it was added with one (or created the user). */
export async function passkeyCounts(ctx: Pick<ServiceContext, "db">, authenticatorId: string) {
  const row = await ctx.db
    .selectFrom("authenticators")
    .select("added_with")
    .where("id", "=", authenticatorId)
    .executeTakeFirst();
  return row !== undefined && row.added_with !== null;
}

/** STEP_UP_REQUIRED, listing only the methods a step-up accepts for this user. */
export async function stepUpRequired(ctx: Pick<ServiceContext, "db">, user: StampedCaller["user"]) {
  const passkey = await ctx.db
    .selectFrom("authenticators")
    .select("id")
    .where("user_id", "=", user.id)
    .where("added_with", "is not", null)
    .executeTakeFirst();
  const factors = await listFactors(ctx, { userId: user.id, stepUpOnly: true });
  const stepUpMethods: StepUpMethod[] = [
    ...(user.email ? (["email"] as const) : []),
    ...(passkey ? (["passkey"] as const) : []),
    ...(factors.length ? (["totp"] as const) : []),
  ];
  return apiError(ErrorCode.STEP_UP_REQUIRED, "This needs a fresh sign-in: confirm it's you", {
    data: { stepUpMethods },
  });
}
