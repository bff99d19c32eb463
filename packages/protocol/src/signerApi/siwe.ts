import { z } from "zod";
import { multilineTextSchema, textSchema } from "../common";
import { SIWE_MESSAGE_MAX_LENGTH } from "../constants";

/**
 * Sign-In with Ethereum (EIP-4361) for external wallets (DESIGN §9): the client asks `/v1/siwe/nonce` for
 * a nonce bound to the app, the address and the chain, builds the message with it, has the wallet
 * `personal_sign` it, and posts both to `/v1/siwe/verify`, which answers a session token (an ES256 JWT,
 * keys at `GET /.well-known/jwks.json`). The app's backend checks a token with `/v1/siwe/session`, or by
 * itself against the key set.
 */

/** An EVM address: 0x and 40 hex digits, any case. */
export const evmAddressHexSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address: 0x followed by 40 hex digits");

/** An EIP-155 chain id. */
export const chainIdSchema = z
  .number()
  .int("must be a whole number")
  .positive("must be a positive chain id")
  .max(Number.MAX_SAFE_INTEGER);

/** `/v1/siwe/nonce`: the account and chain the nonce is for. */
export const siweNonceRequestSchema = z.object({
  /** The account that will sign in. */
  address: evmAddressHexSchema,
  /** The chain the message will name (`Chain ID`). */
  chainId: chainIdSchema,
});
/** The body of `/v1/siwe/nonce`. */
export type SiweNonceRequest = z.input<typeof siweNonceRequestSchema>;
/** A single-use nonce for one EIP-4361 message of this app, address and chain. */
export interface SiweNonceResponse {
  /** Alphanumeric, from a CSPRNG: the message's `Nonce`. */
  nonce: string;
  /** When the nonce was issued (ISO 8601): a good `Issued At`. */
  issuedAt: string;
  /**
   * When the nonce expires (ISO 8601): the message must be verified before then. Put in the message as
   * `Expiration Time`, it also ends the session token then.
   */
  expirationTime: string;
}

// Hex of whole bytes. ERC-6492 signatures carry a factory call, so they are longer than 65 bytes.
const signatureSchema = z
  .string()
  .max(32_768)
  .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x followed by the signature's bytes in hex");

/** `/v1/siwe/verify`: the signed message and its signature. */
export const siweVerifyRequestSchema = z.object({
  /** The EIP-4361 message exactly as the wallet signed it. */
  message: multilineTextSchema(SIWE_MESSAGE_MAX_LENGTH).pipe(z.string().min(1)),
  /** `personal_sign` of the message: an EOA's 65 bytes, or a contract wallet's (ERC-1271, ERC-6492). */
  signature: signatureSchema,
});
/** The body of `/v1/siwe/verify`. */
export type SiweVerifyRequest = z.input<typeof siweVerifyRequestSchema>;
/** A verified sign-in: the session token and who it names. */
export interface SiweVerifyResponse {
  /**
   * An ES256 JWT: `iss` the service's URL, `aud` the app's id, `sub` `eip155:<chainId>:<address>`
   * (CAIP-10), `iat`, `exp`, `jti`.
   */
  token: string;
  /** The signer's address, checksummed (EIP-55). */
  address: string;
  chainId: number;
  /** When the token expires (ISO 8601). */
  expiresAt: string;
}

/** `/v1/siwe/session` (the app's backend): the token to check. */
export const siweSessionRequestSchema = z.object({
  /** A token from `/v1/siwe/verify`. */
  token: textSchema(8192).pipe(z.string().min(1)),
});
/** The body of `/v1/siwe/session`. */
export type SiweSessionRequest = z.input<typeof siweSessionRequestSchema>;
/** What a valid SIWE session token says. */
export interface SiweSessionResponse {
  /** Checksummed (EIP-55). */
  address: string;
  chainId: number;
  /** The app the token was issued to (the caller's app: another app's token is refused). */
  appId: string;
  /** ISO 8601. */
  expiresAt: string;
}
