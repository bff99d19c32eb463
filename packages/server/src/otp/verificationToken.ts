import { createHmac } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";

/** How long a verification token proves its contact. */
export const VERIFICATION_TOKEN_TTL_SECONDS = 600;
const ISSUER = "latchkey";
const TYPE = "OTP_TYPE_EMAIL";

// A key of its own, derived from the OTP key: a token can never be mistaken for anything else signed here.
const tokenKey = (ctx: Pick<ServiceContext, "otpKey">) =>
  createHmac("sha256", ctx.otpKey).update("latchkey verification token v1").digest();

/**
 * The token `/v1/verify-otp` answers: a JWT (HS256, this service's key) naming the verified contact, the
 * app and the code it came from (`jti`, so it is spent once).
 *
 * @example
 * const token = await issueVerificationToken(ctx, { appId: app.id, contact: "ada@example.com", otpId });
 */
export function issueVerificationToken(
  ctx: Pick<ServiceContext, "otpKey" | "now">,
  params: { appId: string; contact: string; otpId: string },
): Promise<string> {
  const now = Math.floor(ctx.now() / 1000);
  return new SignJWT({ contact: params.contact, otpType: TYPE })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(params.appId)
    .setSubject(params.contact)
    .setJti(params.otpId)
    .setIssuedAt(now)
    .setExpirationTime(now + VERIFICATION_TOKEN_TTL_SECONDS)
    .sign(tokenKey(ctx));
}

/**
 * Checks a verification token for `appId` and answers the contact it proves and its code's id; any
 * other token (expired, another app, altered) is INVALID_VERIFICATION_TOKEN.
 *
 * @example
 * const { contact, otpId } = await readVerificationToken(ctx, { appId, token });
 */
export async function readVerificationToken(
  ctx: Pick<ServiceContext, "otpKey" | "now">,
  params: { appId: string; token: string },
): Promise<{ contact: string; otpId: string }> {
  try {
    const { payload } = await jwtVerify(params.token, tokenKey(ctx), {
      issuer: ISSUER,
      audience: params.appId,
      algorithms: ["HS256"],
      currentDate: new Date(ctx.now()),
    });
    if (payload.otpType !== TYPE || typeof payload.contact !== "string" || typeof payload.jti !== "string")
      throw new Error("not a verification token");
    return { contact: payload.contact, otpId: payload.jti };
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    throw apiError(
      ErrorCode.INVALID_VERIFICATION_TOKEN,
      expired
        ? "The verification token has expired; verify the address again"
        : "The verification token is not valid for this app",
    );
  }
}
