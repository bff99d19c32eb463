import { ErrorCode } from "@latchkey/protocol";
import { emailSignupRequestSchema, passkeySignupRequestSchema, signerApi } from "@latchkey/protocol/schemas";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { parseOrThrow } from "../../http/parse";
import { perIpLimit } from "../../http/perIpLimit";
import { route, stampedRoute } from "../../http/route";
import { hit, type LimitHit } from "../../limits/rateLimit";
import { signupWithPasskey } from "../../passkeys/signupWithPasskey";
import { findUserByEmail } from "../../users/userStore";
import { defineFeature } from "../defineFeature";
import { authWithEmail } from "./authWithEmail";
import { initContactOtp } from "./initContactOtp";
import { signupWithEmail } from "./signupWithEmail";
import { verifyContactOtp } from "./verifyContactOtp";
import { verifyEmailOtp } from "./verifyEmailOtp";

function signupLimit(ctx: ServiceContext, ip: string): LimitHit {
  return {
    key: `signup-ip:${ip}`,
    limit: ctx.limits.signupsPerIp,
    message: "Too many new accounts from this network. Try again later.",
  };
}

/** A sign-up body is a passkey's or an email's: each is checked by its own schema, for its own errors. */
function parseSignup(body: unknown) {
  if (typeof body !== "object" || body === null) throw apiError(ErrorCode.INVALID_REQUEST, "Invalid request");
  if ("passkey" in body && body.passkey !== undefined)
    return parseOrThrow(passkeySignupRequestSchema, body, "request");
  return parseOrThrow(emailSignupRequestSchema, body, "request");
}

/**
 * Email sign-in (lookup, signup, auth, otp; sign-up by passkey shares `/v1/signup`) and managing the
 * email sign-in of a signed-in user (init-otp and verify-otp prove the new address, update-email-auth
 * sets or removes it).
 */
export const emailFeature = defineFeature({
  name: "email",
  register(app, ctx) {
    route(app, signerApi.lookup, async ({ body, app, ip }) => {
      await perIpLimit(ctx, {
        kind: "lookup-ip",
        ip,
        limit: ctx.limits.lookupsPerIp,
        message: "Too many lookups from this network. Try again later.",
      });
      const user = await findUserByEmail(ctx.db, app.id, body.email);
      return { orgId: user?.orgId ?? null };
    });

    route(
      app,
      signerApi.signup,
      async ({ body, app, ip }) => {
        if ("passkey" in body) {
          await hit(ctx, signupLimit(ctx, ip));
          return signupWithPasskey(ctx, { app, request: body, ip });
        }
        // The per-network sign-up limit is counted with the mail limits, in one statement.
        return signupWithEmail(ctx, { app, request: body, ip, limits: [signupLimit(ctx, ip)] });
      },
      { parse: parseSignup },
    );

    route(app, signerApi.auth, ({ body, app, ip }) => authWithEmail(ctx, { app, request: body, ip }));

    route(app, signerApi.otp, ({ body, app, ip }) => verifyEmailOtp(ctx, { app, request: body, ip }));

    route(app, signerApi.initOtp, ({ body, app, ip }) =>
      initContactOtp(ctx, { app, contact: body.contact, ip }),
    );

    route(app, signerApi.verifyOtp, ({ body, app, ip }) =>
      verifyContactOtp(ctx, { app, otpId: body.otpId, otpCode: body.otpCode, ip }),
    );

    // A passkey may stamp it: that is a step-up proof (sessions/stepUp.ts).
    stampedRoute(
      app,
      ctx,
      signerApi.updateEmailAuth,
      async ({ submit }) => {
        await submit();
        return {};
      },
      { passkey: { allowRootOrg: false } },
    );
  },
});
