import type { ServiceContext } from "../context";
import type { RateLimits } from "../limits/config";
import { hit, type LimitHit } from "../limits/rateLimit";

/** A limit per client network: its counter's name, the `rateLimits` setting that sizes it, the 429's text. */
interface IpLimit {
  kind: string;
  limit: keyof RateLimits;
  message: string;
}

const SIGN_IN_ATTEMPTS = "Too many sign-in attempts from this network. Try again later.";

/** Every per-network limit, by what it counts. */
const IP_LIMITS = {
  lookup: {
    kind: "lookup-ip",
    limit: "lookupsPerIp",
    message: "Too many lookups from this network. Try again later.",
  },
  /** New accounts: sign-up by passkey and by email count against the same limit. */
  signup: {
    kind: "signup-ip",
    limit: "signupsPerIp",
    message: "Too many new accounts from this network. Try again later.",
  },
  mail: {
    kind: "mail-ip",
    limit: "mailsPerIp",
    message: "Too many sign-in emails from this network. Try again later.",
  },
  codeAttempt: {
    kind: "otp-ip",
    limit: "otpAttemptsPerIp",
    message: "Too many code attempts from this network. Try again later.",
  },
  oauthPrepare: { kind: "oauth-prepare-ip", limit: "oauthPreparesPerIp", message: SIGN_IN_ATTEMPTS },
  siweNonce: { kind: "siwe-nonce-ip", limit: "siweNoncesPerIp", message: SIGN_IN_ATTEMPTS },
  siweVerify: { kind: "siwe-verify-ip", limit: "siweVerificationsPerIp", message: SIGN_IN_ATTEMPTS },
} as const satisfies Record<string, IpLimit>;

export type IpLimitName = keyof typeof IP_LIMITS;

/** The per-network limit `name` for `ip`, to count in one statement with others (`hitAll`). */
export function ipLimit(ctx: Pick<ServiceContext, "limits">, name: IpLimitName, ip: string): LimitHit {
  const { kind, limit, message } = IP_LIMITS[name];
  return { key: `${kind}:${ip}`, limit: ctx.limits[limit], message };
}

/** Counts one request against the per-network limit `name` (429 with Retry-After when over). */
export function perIpLimit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  name: IpLimitName,
  ip: string,
): Promise<void> {
  return hit(ctx, ipLimit(ctx, name, ip));
}
