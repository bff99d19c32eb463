import { importPKCS8, SignJWT } from "jose";
import type { App, StoredOauthProvider } from "../apps/appDirectory";
import type { ServiceContext } from "../context";

/** A minted client secret lives this long; Apple accepts up to six months, the service re-mints long before. */
export const APPLE_CLIENT_SECRET_TTL_SECONDS = 3600;
/** Re-minted when less than this is left, so a secret never expires in the middle of an exchange. */
const REMINT_BEFORE_SECONDS = 600;

interface Minted {
  secret: string;
  exp: number;
}

/**
 * Sign in with Apple's client secret: an ES256 JWT signed with the app's Apple key (the `.p8`, sealed at
 * rest, opened only here), `kid` the key id, `iss` the team id, `sub` the Services ID (client id), `aud`
 * Apple's issuer, `iat` now and `exp` an hour on. Minted on first use and again when it nears expiry
 * (the service's clock), so it rotates without anyone touching the config.
 *
 * @example
 * const secret = await appleClientSecret(ctx, { app, provider }); // the token request's client_secret
 */
export async function appleClientSecret(
  ctx: Pick<ServiceContext, "keyring" | "now" | "caches">,
  params: { app: App; provider: StoredOauthProvider },
): Promise<string> {
  const { app, provider } = params;
  const apple = provider.apple;
  if (!apple) throw new Error(`${provider.displayName} has no Apple key configured`);
  const cache = ctx.caches.providerRuntimes as Map<string, unknown>;
  const key = `apple-secret/${app.id}/${provider.id}/${apple.keyId}/${apple.sealedPrivateKey.slice(-16)}`;
  const now = Math.floor(ctx.now() / 1000);
  const cached = cache.get(key) as Minted | undefined;
  if (cached && cached.exp - now > REMINT_BEFORE_SECONDS) return cached.secret;
  const pem = (
    await ctx.keyring.open(apple.sealedPrivateKey, `oauth_apple_key:${app.id}:${provider.id}`)
  ).toString("utf8");
  const exp = now + APPLE_CLIENT_SECRET_TTL_SECONDS;
  const secret = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: apple.keyId })
    .setIssuer(apple.teamId)
    .setSubject(provider.clientId)
    .setAudience(provider.issuer)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(await importPKCS8(pem, "ES256"));
  cache.set(key, { secret, exp } satisfies Minted);
  return secret;
}
