import { ErrorCode } from "@latchkey/protocol";
import { forgetStampKeys } from "../../auth/stamps/stampKeyCache";
import { assertKeepsASignInMethod } from "../../authMethods/lastMethodRule";
import { apiError } from "../../errors";
import { emailChangedMail } from "../../mail/templates";
import { readVerificationToken } from "../../otp/verificationToken";
import { defineActivity } from "../defineActivity";

interface Prepared {
  /** The new sign-in email, or null to turn email sign-in off. */
  email: string | null;
  /** The contact code the verification token came from (spent in the transaction). */
  otpId?: string;
  appName: string;
}

/**
 * `update_user_email`: the user's email sign-in becomes `userEmail`, which a verification token from
 * `/v1/verify-otp` must prove (checked before the transaction, spent inside it); an empty `userEmail`
 * turns email sign-in off, never the last way to sign in. The session stays; the old address is told.
 */
export const updateUserEmail = defineActivity<"ACTIVITY_TYPE_UPDATE_USER_EMAIL", Prepared>({
  type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    // The placeholder of an address in the reserved `.invalid` domain also means "no email" (spec §5).
    if (params.userEmail === "" || params.userEmail.endsWith(".invalid"))
      return { email: null, appName: app.name };
    if (!params.verificationToken)
      throw apiError(
        ErrorCode.INVALID_VERIFICATION_TOKEN,
        "A new email needs a verification token (init-otp, verify-otp)",
      );
    const proven = await readVerificationToken(ctx, { appId: app.id, token: params.verificationToken });
    if (proven.contact !== params.userEmail)
      throw apiError(ErrorCode.INVALID_VERIFICATION_TOKEN, "The verification token is for another address");
    return { email: params.userEmail, otpId: proven.otpId, appName: app.name };
  },
  async run(tx, { caller, prepared }) {
    const userId = caller.user.id;
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
      { appId: caller.user.appId, userId, details: { from: caller.user.email, to: prepared.email } },
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
    void ctx.apps.byId(caller.user.appId).then((app) => {
      if (app)
        ctx.mailer.send(
          emailChangedMail({ to: old, appName: app.name, locale: app.locale, newEmail: email }),
        );
    });
  },
});
