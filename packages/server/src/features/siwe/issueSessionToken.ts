import { SIWE_TOKEN_TTL_SECONDS } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { siweJwk } from "./siweKey";

const b64json = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * The session token of a verified sign-in: a JWT signed ES256 by the service's `siwe` key (RFC 7515
 * compact form) with `iss` the service's URL, `aud` the app, `sub` the CAIP-10 account
 * `eip155:<chainId>:<address>`, `iat`, `exp` (the message's `Expiration Time` when that is sooner than
 * SIWE_TOKEN_TTL_SECONDS) and a fresh `jti`.
 *
 * @example
 * const { token, expiresAt } = await issueSessionToken(ctx, { issuer, appId, address, chainId });
 */
export async function issueSessionToken(
  ctx: Pick<ServiceContext, "serviceKeys" | "now" | "random">,
  params: { issuer: string; appId: string; address: string; chainId: number; expirationTime?: Date },
): Promise<{ token: string; jti: string; expiresAt: number }> {
  const iat = Math.floor(ctx.now() / 1000);
  const until = params.expirationTime ? Math.floor(params.expirationTime.getTime() / 1000) : Infinity;
  const exp = Math.min(iat + SIWE_TOKEN_TTL_SECONDS, until);
  const jti = ctx.random.uuid();
  const { kid } = await siweJwk(ctx);
  const header = b64json({ alg: "ES256", typ: "JWT", kid });
  const payload = b64json({
    iss: params.issuer,
    aud: params.appId,
    sub: `eip155:${params.chainId}:${params.address}`,
    iat,
    exp,
    jti,
  });
  const signingInput = `${header}.${payload}`;
  const signature = await ctx.serviceKeys.signEs256("siwe", new TextEncoder().encode(signingInput));
  return {
    token: `${signingInput}.${Buffer.from(signature).toString("base64url")}`,
    jti,
    expiresAt: exp * 1000,
  };
}
