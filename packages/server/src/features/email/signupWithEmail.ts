import { ErrorCode, type emailSignupRequestSchema, type SignupResponse } from "@latchkey/protocol";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { isUniqueViolation } from "../../db/uniqueViolation";
import { apiError } from "../../errors";
import type { LimitHit } from "../../limits/rateLimit";
import type { Mail } from "../../mail/templates";
import { createUser, findUserByEmail, type NewUser } from "../../users/userStore";
import { startEmailChallenge, throttleMail } from "./emailChallenge";
import { magicLinkTarget, resolveMode } from "./magicLink";

const userExists = () =>
  apiError(ErrorCode.USER_EXISTS, "A user with this email already exists; sign in instead");

/** A new user by email: the user, the wallet and the first code (or link) in one transaction. */
export async function signupWithEmail(
  ctx: ServiceContext,
  params: {
    app: App;
    request: z.output<typeof emailSignupRequestSchema>;
    ip: string;
    /** The route's own limits (new accounts per network), counted with the mail limits. */
    limits?: LimitHit[];
  },
): Promise<SignupResponse> {
  const { app, request, ip } = params;
  if (resolveMode(app, request.emailMode) === "magicLink") magicLinkTarget(app, request.redirectUrl);
  await throttleMail(ctx, { email: request.email, ip, also: params.limits ?? [] });
  if (await findUserByEmail(ctx.db, app.id, request.email)) throw userExists();
  let outcome: { user: NewUser; challenge: { otpId?: string; mail: Mail } };
  try {
    outcome = await createUser(
      ctx,
      { appId: app.id, email: request.email, custody: app.custody },
      async (trx, user) => {
        const challenge = await startEmailChallenge(
          { ...ctx, db: trx },
          { app, user, email: request.email, request },
        );
        await ctx.audit(
          "user.signup",
          { appId: app.id, userId: user.id, ip, details: { method: "email" } },
          trx,
        );
        return { user, challenge };
      },
    );
  } catch (e) {
    if (isUniqueViolation(e)) throw userExists();
    throw e;
  }
  const { user, challenge } = outcome;
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
