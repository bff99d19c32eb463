import { type AuthResponse, type authRequestSchema, ErrorCode } from "@latchkey/protocol";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { findUserByEmail } from "../../users/userStore";
import { checkAllFactors, mfaRequired } from "../mfa/checkFactorCode";
import { listFactors } from "../mfa/factorStore";
import { startEmailChallenge, throttleMail } from "./emailChallenge";
import { magicLinkTarget, resolveMode } from "./magicLink";

/** An existing user by email: mails a code, or a magic link once any second factor has been answered. */
export async function authWithEmail(
  ctx: ServiceContext,
  params: { app: App; request: z.output<typeof authRequestSchema>; ip: string },
): Promise<AuthResponse> {
  const { app, request, ip } = params;
  const magicLink = resolveMode(app, request.emailMode) === "magicLink";
  if (magicLink) magicLinkTarget(app, request.redirectUrl);
  await throttleMail(ctx, { email: request.email, ip });
  const user = await findUserByEmail(ctx.db, app.id, request.email);
  if (!user) throw apiError(ErrorCode.USER_NOT_FOUND, "No user with this email; sign up first");
  // A disabled user is refused before any mail: no code or link is sent that could not be used.
  if (user.disabledAt !== null) throw apiError(ErrorCode.USER_DISABLED, "This user is disabled");
  // A magic link is a session by itself, so a second factor is asked for before it is mailed.
  if (magicLink) {
    const factors = await listFactors(ctx, { userId: user.id });
    if (factors.length > 0) {
      if (!request.multiFactors?.length) throw mfaRequired(factors);
      await checkAllFactors(ctx, { userId: user.id, given: request.multiFactors });
    }
  }
  const challenge = await startEmailChallenge(ctx, { app, user, email: request.email, request });
  ctx.mailer.send(challenge.mail);
  return { orgId: user.orgId, ...(challenge.otpId ? { otpId: challenge.otpId } : {}) };
}
