import { ErrorCode } from "@latchkey/protocol";
import { forgetStampKeys } from "../../auth/stamps/stampKeyCache";
import { apiError } from "../../errors";
import { assertKeepsASignInMethod } from "../../features/authMethods/lastMethodRule";
import { emailChangedMail } from "../../mail/templates";
import { readVerificationToken } from "../../otp/verificationToken";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { defineActivity } from "../defineActivity";

interface Prepared {
  /** The new sign-in email, or null to turn email sign-in off. */
  email: string | null;
  /** The contact code the verification token came from (spent in the transaction). */
  otpId?: string;
  /** The step-up proof of the account as it was; absent when the address does not change. */
  stepUp?: StepUpProofUsed;
  /** The current email's verification token (the step-up proof), spent in the transaction. */
  stepUpOtpId?: string;
  appName: string;
}

/**
 * `update_user_email`: the user's email sign-in becomes `userEmail`, which a verification token from
 * `/v1/verify-otp` must prove (checked before the transaction, spent inside it); an empty `userEmail`
 * turns email sign-in off, never the last way to sign in. A change of address (or its removal) needs a
 * fresh sign-in of the account as it is (sessions/stepUp.ts, as wallet export): the current email's
 * `currentEmailVerificationToken`, an earlier factor's code, a passkey stamp or a fresh session. The new
 * address's token proves only the new address. The session stays; the old address is told.
 */
export const updateUserEmail = defineActivity<"ACTIVITY_TYPE_UPDATE_USER_EMAIL", Prepared>({
  type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    // The placeholder of an address in the reserved `.invalid` domain also means "no email" (spec §5).
    const removing = params.userEmail === "" || params.userEmail.endsWith(".invalid");
    let otpId: string | undefined;
    if (!removing) {
      if (!params.verificationToken)
        throw apiError(
          ErrorCode.INVALID_VERIFICATION_TOKEN,
          "A new email needs a verification token (init-otp, verify-otp)",
        );
      const proven = await readVerificationToken(ctx, { appId: app.id, token: params.verificationToken });
      if (proven.contact !== params.userEmail)
        throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "The verification token is for another address");
      otpId = proven.otpId;
    }
    const email = removing ? null : params.userEmail;
    const stepUp =
      email === caller.user.email
        ? undefined
        : await requireFreshSignIn(ctx, {
            caller,
            appId: app.id,
            proof: {
              verificationToken: params.currentEmailVerificationToken,
              multiFactor: params.multiFactor,
            },
          });
    return {
      email,
      appName: app.name,
      ...(otpId ? { otpId } : {}),
      ...(stepUp ? { stepUp: stepUp.used } : {}),
      ...(stepUp?.spendOtpId ? { stepUpOtpId: stepUp.spendOtpId } : {}),
    };
  },
  async run(tx, { caller, prepared }) {
    const userId = caller.user.id;
    if (prepared.stepUpOtpId) await spendStepUpToken(tx, prepared.stepUpOtpId);
    if (prepared.otpId) {
      const spent = await tx.db
        .updateTable("contact_otps")
        .set({ token_used_at: tx.now() })
        .where("id", "=", prepared.otpId)
        .where("token_used_at", "is", null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1)
        throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "This verification token was already used");
    }
    if (prepared.email === null) {
      await assertKeepsASignInMethod(tx, { userId, removeEmail: true });
    } else {
      const owner = await tx.db
        .selectFrom("users")
        .select("id")
        .where("app_id", "=", caller.user.appId)
        .where("email", "=", prepared.email)
        .executeTakeFirst();
      if (owner && owner.id !== userId)
        throw apiError(ErrorCode.EMAIL_IN_USE, "This email already signs in to another account");
    }
    await tx.db.updateTable("users").set({ email: prepared.email }).where("id", "=", userId).execute();
    await tx.audit(
      prepared.email ? "user.email_changed" : "user.email_removed",
      {
        appId: caller.user.appId,
        userId,
        details: { from: caller.user.email, to: prepared.email, stepUp: prepared.stepUp ?? null },
      },
      tx.db,
    );
    return { userId };
  },
  afterCommit(ctx, { caller, params }) {
    // Cached stamp keys carry the user's email: the next request reads the new one.
    forgetStampKeys(ctx);
    const old = caller.user.email;
    const email = params.userEmail === "" || params.userEmail.endsWith(".invalid") ? null : params.userEmail;
    if (!old || old === email) return;
    ctx.mailer.sendOnceBuilt(
      ctx.apps
        .byId(caller.user.appId)
        .then(
          (app) =>
            app && emailChangedMail({ to: old, appName: app.name, locale: app.locale, newEmail: email }),
        ),
    );
  },
});
