import { emailSignupRequestSchema, signerApi } from "@latchkey/protocol/schemas";
import { ipLimit, perIpLimit } from "../../http/perIpLimit";
import { route, routeShape, stampedRoute } from "../../http/route";
import { findUserByEmail } from "../../users/userStore";
import { defineFeature } from "../defineFeature";
import { authWithEmail } from "./authWithEmail";
import { initContactOtp } from "./initContactOtp";
import { signupWithEmail } from "./signupWithEmail";
import { verifyContactOtp } from "./verifyContactOtp";
import { verifyEmailOtp } from "./verifyEmailOtp";

/**
 * Email sign-in (lookup, signup, auth, otp; sign-up by passkey shares `/v1/signup`: features/passkeys)
 * and managing the email sign-in of a signed-in user (init-otp and verify-otp prove the new address,
 * update-email-auth sets or removes it).
 */
export const emailFeature = defineFeature({
  name: "email",
  register(app, ctx) {
    route(app, signerApi.lookup, async ({ body, app, ip }) => {
      await perIpLimit(ctx, "lookup", ip);
      const user = await findUserByEmail(ctx.db, app.id, body.email);
      return { orgId: user?.orgId ?? null };
    });

    // A sign-up body without a passkey is an email's. The per-network sign-up limit is counted with the
    // mail limits, in one statement.
    routeShape(app, signerApi.signup, { schema: emailSignupRequestSchema }, ({ body, app, ip }) =>
      signupWithEmail(ctx, { app, request: body, ip, limits: [ipLimit(ctx, "signup", ip)] }),
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
