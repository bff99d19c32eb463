import type { ServiceContext } from "../context";
import { hit } from "../limits/rateLimit";

/** A fixed-window limit per client IP (429 with Retry-After when over). */
export function perIpLimit(
  ctx: Pick<ServiceContext, "db" | "now" | "limits">,
  params: { kind: string; ip: string; limit: number; message: string },
): Promise<void> {
  return hit(ctx, { key: `${params.kind}:${params.ip}`, limit: params.limit, message: params.message });
}
