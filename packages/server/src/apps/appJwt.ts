import { ErrorCode } from "@latchkey/protocol";
import { createRemoteJWKSet, decodeJwt, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from "jose";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";
import type { App } from "./appDirectory";

/** A bearer token shaped like a JWT (three base64url parts, a JSON header). */
export function looksLikeJwt(token: string): boolean {
  return /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

const refused = (reason: string) => apiError(ErrorCode.INVALID_API_KEY, `App JWT refused: ${reason}`);

/**
 * The app a JWT from the app's own backend speaks for (spec §3 "api key or jwt"). The token names the
 * app in `aud` (its Latchkey id, or the audience the app configured); the app must accept JWTs, and the
 * token must be signed by a key of the app's JWKS, issued by its issuer, and within its lifetime.
 *
 * @example
 * const app = await appFromJwt(ctx, token); // or INVALID_API_KEY with the reason
 */
export async function appFromJwt(
  ctx: Pick<ServiceContext, "apps" | "caches" | "now">,
  token: string,
): Promise<App> {
  let audiences: string[];
  try {
    const { aud } = decodeJwt(token);
    audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  } catch {
    throw refused("not a JWT");
  }
  let app: App | null = null;
  for (const id of audiences) {
    if (id.length > 128) continue;
    app = await ctx.apps.byId(id);
    if (app) break;
  }
  if (!app) throw refused("its audience names no app");
  const config = app.jwt;
  if (!config) throw refused(`app ${app.id} does not accept JWTs`);
  let keys = ctx.caches.appJwks.get(config.jwksUrl) as JWTVerifyGetKey | undefined;
  if (!keys) {
    keys = createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    ctx.caches.appJwks.set(config.jwksUrl, keys);
  }
  try {
    await jwtVerify(token, keys, {
      issuer: config.issuer,
      audience: config.audience ?? app.id,
      currentDate: new Date(ctx.now()),
      clockTolerance: 5,
      requiredClaims: ["exp"],
    });
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw refused("expired");
    if (error instanceof joseErrors.JWTClaimValidationFailed) throw refused(`claim ${error.claim} is wrong`);
    if (
      error instanceof joseErrors.JWKSNoMatchingKey ||
      error instanceof joseErrors.JWSSignatureVerificationFailed
    )
      throw refused("not signed by the app's keys");
    if (error instanceof joseErrors.JOSEError) throw refused(error.message);
    throw error;
  }
  return app;
}
