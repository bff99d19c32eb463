import { p256 } from "@noble/curves/nist";
import { calculateJwkThumbprint, type JWK } from "jose";
import type { ServiceContext } from "../../context";

/** The public key of SIWE session tokens as a JWK (RFC 7517), `kid` its RFC 7638 thumbprint. */
export interface SiweJwk extends JWK {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

/**
 * The service's SIWE token key (a `siwe` service key: P-256, made on first use, sealed at rest, the same
 * for every instance sharing the database) as a public JWK: what `GET /.well-known/jwks.json` publishes.
 *
 * @example
 * const { kid } = await siweJwk(ctx);
 */
export async function siweJwk(ctx: Pick<ServiceContext, "serviceKeys">): Promise<SiweJwk> {
  const point = p256.Point.fromHex(await ctx.serviceKeys.publicKey("siwe")).toRawBytes(false);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  const key = {
    kty: "EC",
    crv: "P-256",
    x: b64(point.subarray(1, 33)),
    y: b64(point.subarray(33, 65)),
  } as const;
  return { ...key, kid: await calculateJwkThumbprint(key, "sha256"), alg: "ES256", use: "sig" };
}
