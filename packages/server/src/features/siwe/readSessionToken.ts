import { ErrorCode, type SiweSessionResponse } from "@latchkey/protocol";
import { importJWK, jwtVerify } from "jose";
import { getAddress } from "viem";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { siweJwk } from "./siweKey";

const CAIP10 = /^eip155:([1-9]\d{0,15}):(0x[0-9a-fA-F]{40})$/;

/**
 * What a SIWE session token says, for the app it was issued to: signed by this service's `siwe` key,
 * `aud` the app, not expired, and (when the service has a public URL) `iss` that URL. Any other token
 * is SIWE_TOKEN_INVALID.
 *
 * @example
 * const { address, chainId, expiresAt } = await readSessionToken(ctx, { appId: app.id, token });
 */
export async function readSessionToken(
  ctx: Pick<ServiceContext, "serviceKeys" | "now" | "publicUrl">,
  params: { appId: string; token: string },
): Promise<SiweSessionResponse> {
  const key = await importJWK(await siweJwk(ctx), "ES256");
  let payload: { sub?: string; exp?: number };
  try {
    ({ payload } = await jwtVerify(params.token, key, {
      algorithms: ["ES256"],
      audience: params.appId,
      ...(ctx.publicUrl ? { issuer: ctx.publicUrl } : {}),
      currentDate: new Date(ctx.now()),
      clockTolerance: 5,
      requiredClaims: ["iss", "sub", "iat", "exp", "jti"],
    }));
  } catch {
    throw apiError(
      ErrorCode.SIWE_TOKEN_INVALID,
      "The token is not a valid SIWE session of this app, or has expired",
    );
  }
  const account = CAIP10.exec(payload.sub ?? "");
  if (!account?.[1] || !account[2] || payload.exp === undefined)
    throw apiError(ErrorCode.SIWE_TOKEN_INVALID, "The token does not name an account");
  return {
    address: getAddress(account[2]),
    chainId: Number(account[1]),
    appId: params.appId,
    expiresAt: new Date(payload.exp * 1000).toISOString(),
  };
}
