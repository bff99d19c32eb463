import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { ipLimit } from "../../http/perIpLimit";
import { hitAll, type LimitHit } from "../../limits/rateLimit";
import { type Mail, magicLinkMail } from "../../mail/templates";
import { createEmailOtp } from "../../otp/emailOtp";
import { issueSession } from "../../sessions/issueSession";
import type { UserRecord } from "../../users/userStore";
import { type EmailModeChoice, magicLinkTarget, resolveMode } from "./magicLink";

/**
 * Per-network and per-address limits on sign-in mail, counted in one statement with any `also` limits
 * of the same request (a sign-up's per-network limit), and checked in that order after them.
 */
export async function throttleMail(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: { email: string; ip: string; also?: LimitHit[] },
): Promise<void> {
  await hitAll(ctx, [
    ...(params.also ?? []),
    ipLimit(ctx, "mail", params.ip),
    {
      key: `mail-email:${params.email}`,
      limit: ctx.limits.mailsPerEmail,
      message: "Too many sign-in emails to this address. Try again later.",
    },
  ]);
}

/**
 * The mail that proves the address: a code (its HMAC stored) or a magic link carrying a session bundle
 * sealed to this browser's target key, so that opening it elsewhere, or a scanner prefetching it,
 * neither works nor consumes anything. The caller sends the mail once its transaction commits.
 */
export async function startEmailChallenge(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "otpKey" | "audit">,
  params: {
    app: App;
    user: UserRecord;
    email: string;
    request: {
      emailMode?: EmailModeChoice | undefined;
      targetPublicKey: string;
      expirationSeconds?: number | undefined;
      redirectParams?: string | undefined;
      redirectUrl?: string | undefined;
    };
  },
): Promise<{ otpId?: string; mail: Mail }> {
  const { app, user, email, request } = params;
  if (resolveMode(app, request.emailMode) === "otp") return createEmailOtp(ctx, { app, user, email });
  const target = magicLinkTarget(app, request.redirectUrl);
  const session = await issueSession(ctx, {
    user,
    targetPublicKey: request.targetPublicKey,
    expirationSeconds: request.expirationSeconds,
    name: "magic-link",
    signedInBy: "magic_link",
  });
  if (request.redirectParams) {
    for (const [k, v] of new URLSearchParams(request.redirectParams)) {
      if (k !== "bundle" && k !== "orgId") target.searchParams.set(k, v);
    }
  }
  target.searchParams.set("bundle", session.credentialBundle);
  target.searchParams.set("orgId", user.orgId);
  const ttl = Math.round((session.expiresAt - ctx.now()) / 60_000);
  return {
    mail: magicLinkMail({
      to: email,
      appName: app.name,
      locale: app.locale,
      link: target.toString(),
      ttlMinutes: ttl,
    }),
  };
}
