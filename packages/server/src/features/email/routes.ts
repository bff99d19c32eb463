import { ErrorCode } from "@latchkey/protocol";
import { emailSignupRequestSchema, passkeySignupRequestSchema, signerApi } from "@latchkey/protocol/schemas";
import type { FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { parseOrThrow } from "../../http/parse";
import { perIpLimit } from "../../http/perIpLimit";
import { appOf } from "../../http/plugins/appApiKey";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { submitActivity } from "../../keyManagement/submitActivity";
import { hit, type LimitHit } from "../../limits/rateLimit";
import { signupWithPasskey } from "../../passkeys/signupWithPasskey";
import { findUserByEmail } from "../../users/userStore";
import { defineFeature } from "../defineFeature";
import { authWithEmail } from "./authWithEmail";
import { initContactOtp } from "./initContactOtp";
import { signupWithEmail } from "./signupWithEmail";
import { verifyContactOtp } from "./verifyContactOtp";
import { verifyEmailOtp } from "./verifyEmailOtp";

const prefixed = (path: string) => `/signer${path}`;

function signupLimit(ctx: ServiceContext, req: FastifyRequest): LimitHit {
  return {
    key: `signup-ip:${req.ip}`,
    limit: ctx.limits.signupsPerIp,
    message: "Too many new accounts from this network. Try again later.",
  };
}

function throttleSignup(ctx: ServiceContext, req: FastifyRequest) {
  return hit(ctx, signupLimit(ctx, req));
}

/**
 * Email sign-in (lookup, signup, auth, otp; sign-up by passkey shares `/v1/signup`) and managing the
 * email sign-in of a signed-in user (init-otp and verify-otp prove the new address, update-email-auth
 * sets or removes it).
 */
export const emailFeature = defineFeature({
  name: "email",
  register(app, ctx) {
    app.post(prefixed(signerApi.lookup.path), async (req) => {
      const { email } = parseOrThrow(signerApi.lookup.request, req.body ?? {}, "request");
      await perIpLimit(ctx, {
        kind: "lookup-ip",
        ip: req.ip,
        limit: ctx.limits.lookupsPerIp,
        message: "Too many lookups from this network. Try again later.",
      });
      const user = await findUserByEmail(ctx.db, appOf(req).id, email);
      return { orgId: user?.orgId ?? null };
    });

    app.post(prefixed(signerApi.signup.path), async (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== "object" || body === null)
        throw apiError(ErrorCode.INVALID_REQUEST, "Invalid request");
      if ("passkey" in body && body.passkey !== undefined) {
        const request = parseOrThrow(passkeySignupRequestSchema, body, "request");
        await throttleSignup(ctx, req);
        return signupWithPasskey(ctx, { app: appOf(req), request, ip: req.ip });
      }
      const request = parseOrThrow(emailSignupRequestSchema, body, "request");
      // The per-network sign-up limit is counted with the mail limits, in one statement.
      return signupWithEmail(ctx, { app: appOf(req), request, ip: req.ip, limits: [signupLimit(ctx, req)] });
    });

    app.post(prefixed(signerApi.auth.path), async (req) => {
      const request = parseOrThrow(signerApi.auth.request, req.body ?? {}, "request");
      return authWithEmail(ctx, { app: appOf(req), request, ip: req.ip });
    });

    app.post(prefixed(signerApi.otp.path), async (req) => {
      const request = parseOrThrow(signerApi.otp.request, req.body ?? {}, "request");
      return verifyEmailOtp(ctx, { app: appOf(req), request, ip: req.ip });
    });

    app.post(prefixed(signerApi.initOtp.path), async (req) => {
      const { contact } = parseOrThrow(signerApi.initOtp.request, req.body ?? {}, "request");
      return initContactOtp(ctx, { app: appOf(req), contact, ip: req.ip });
    });

    app.post(prefixed(signerApi.verifyOtp.path), async (req) => {
      const { otpId, otpCode } = parseOrThrow(signerApi.verifyOtp.request, req.body ?? {}, "request");
      return verifyContactOtp(ctx, { app: appOf(req), otpId, otpCode, ip: req.ip });
    });

    app.post(prefixed(signerApi.updateEmailAuth.path), async (req) => {
      // A passkey may stamp it: that is a step-up proof (sessions/stepUp.ts).
      const { caller, raw } = await unwrapStampedRequest(ctx, req, signerApi.updateEmailAuth, {
        passkey: { allowRootOrg: false },
      });
      await submitActivity(ctx, { path: "update_user_email", rawBody: raw, caller });
      return {};
    });
  },
});
