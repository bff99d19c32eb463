import { p256 } from "@noble/curves/nist";
import { calculateJwkThumbprint, importJWK, jwtVerify } from "jose";
import type { ServiceContext } from "../context";
import type { ProviderUser } from "./providers";

/** How long an identity token may be offered for linking (an OIDC ID token typically lives an hour). */
export const IDENTITY_TOKEN_TTL_SECONDS = 3600;

const b64json = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function identityJwk(ctx: Pick<ServiceContext, "serviceKeys">) {
  const point = p256.Point.fromHex(await ctx.serviceKeys.publicKey("oauthIdentity")).toRawBytes(false);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  const key = { kty: "EC", crv: "P-256", x: b64(point.subarray(1, 33)), y: b64(point.subarray(33, 65)) };
  return { ...key, kid: await calculateJwkThumbprint(key, "sha256"), alg: "ES256" };
}

/**
 * The ID token the service writes for a sign-in through an OAuth 2.0 provider that has none (Facebook,
 * GitHub, Discord): a JWT signed ES256 by the service's `oauthIdentity` key, shaped like an OIDC ID token
 * (`iss` the provider, `sub` its user id, `aud` the app's client id, `nonce` the browser's key hash, the
 * email only when the provider returned one), so the client and linking treat every provider alike.
 *
 * @example
 * const idToken = await issueIdentityToken(ctx, { issuer, audience: clientId, user, nonce });
 */
export async function issueIdentityToken(
  ctx: Pick<ServiceContext, "serviceKeys" | "now" | "random">,
  params: { issuer: string; audience: string; user: ProviderUser; nonce: string },
): Promise<string> {
  const { user } = params;
  const iat = Math.floor(ctx.now() / 1000);
  const { kid } = await identityJwk(ctx);
  const header = b64json({ alg: "ES256", typ: "JWT", kid });
  const payload = b64json({
    iss: params.issuer,
    aud: params.audience,
    sub: user.subject,
    iat,
    exp: iat + IDENTITY_TOKEN_TTL_SECONDS,
    nonce: params.nonce,
    jti: ctx.random.uuid(),
    ...(user.email ? { email: user.email, email_verified: user.emailVerified } : {}),
    ...(user.name ? { name: user.name } : {}),
  });
  const signingInput = `${header}.${payload}`;
  const signature = await ctx.serviceKeys.signEs256("oauthIdentity", new TextEncoder().encode(signingInput));
  return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
}

/**
 * The claims of an identity token this service issued, checked by signature, issuer, audience and expiry;
 * throws (jose's error) otherwise.
 *
 * @example
 * const claims = await verifyIdentityToken(ctx, { token, issuer, audience: clientId });
 */
export async function verifyIdentityToken(
  ctx: Pick<ServiceContext, "serviceKeys" | "now">,
  params: { token: string; issuer: string; audience: string },
): Promise<Record<string, unknown>> {
  const key = await importJWK(await identityJwk(ctx), "ES256");
  const { payload } = await jwtVerify(params.token, key, {
    algorithms: ["ES256"],
    issuer: params.issuer,
    audience: params.audience,
    currentDate: new Date(ctx.now()),
    clockTolerance: 30,
    requiredClaims: ["sub", "iat", "exp"],
  });
  return payload as Record<string, unknown>;
}
