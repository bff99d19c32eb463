import type { ServiceContext } from "../context";
import { hit, type LimitHit } from "../limits/rateLimit";

/** A fixed-window limit per client IP (429 with Retry-After when over). */
export function perIpLimit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: { kind: string; ip: string; limit: number; message: string },
): Promise<void> {
  return hit(ctx, { key: `${params.kind}:${params.ip}`, limit: params.limit, message: params.message });
}

/** New accounts per network: sign-up by passkey and by email count against the same limit. */
export function signupIpLimit(ctx: Pick<ServiceContext, "limits">, ip: string): LimitHit {
  return {
    key: `signup-ip:${ip}`,
    limit: ctx.limits.signupsPerIp,
    message: "Too many new accounts from this network. Try again later.",
  };
}
