import type { FastifyRequest } from "fastify";
import type { ServiceContext } from "../../../context";

/**
 * The console's origin and WebAuthn relying party: the service's public URL when configured (publicUrl,
 * LATCHKEY_PUBLIC_URL), else the address the request came to (as the OAuth callback reads it). A passkey
 * is bound to the origin and relying party it was enrolled on (console_passkeys), so a later request
 * through another address cannot sign in with it.
 */
export function consoleOrigin(
  ctx: Pick<ServiceContext, "publicUrl">,
  req: Pick<FastifyRequest, "protocol" | "host">,
): { origin: string; rpId: string } {
  const url = new URL(ctx.publicUrl ?? `${req.protocol}://${req.host}`);
  return { origin: url.origin, rpId: url.hostname };
}
