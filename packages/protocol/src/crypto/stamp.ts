import { p256 } from "@noble/curves/nist";
import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { decodeBase64url, encodeBase64url } from "./base64url";
import { StampFormatError } from "./errors";
import { fromHex, isBytes, toHex } from "./hex";
import { p256PublicKeyFromPrivate } from "./p256";

export const STAMP_HEADER_NAME = "X-Stamp";
export const WEBAUTHN_STAMP_HEADER_NAME = "X-Stamp-WebAuthn";
export const STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256";

/** The decoded `X-Stamp` header (DESIGN §3.2). */
export interface ApiKeyStamp {
  /** Compressed P-256 public key, 66 lowercase hex chars. */
  publicKey: string;
  scheme: typeof STAMP_SCHEME;
  /** DER-encoded ECDSA-P256-SHA256 signature over the exact UTF-8 body, hex. */
  signature: string;
}

/** An `X-Stamp` (or `X-Stamp-WebAuthn`) header: its name and value. */
export interface StampHeader {
  stampHeaderName: string;
  stampHeaderValue: string;
}

// A real header is ~250 chars; the cap keeps hostile input from costing more than a parse.
const MAX_STAMP_HEADER_LENGTH = 4096;
const COMPRESSED_KEY_HEX = /^0[23][0-9a-f]{64}$/;
// An ECDSA P-256 DER signature is 8..72 bytes.
const DER_SIGNATURE_HEX = /^(?:[0-9a-f]{2}){8,72}$/;
const COMPACT_LENGTH = 64;

/** base64url without padding of the JSON `{publicKey, scheme, signature}`, keys in that order. */
export function encodeStamp(stamp: ApiKeyStamp): string {
  const json = JSON.stringify({
    publicKey: stamp.publicKey,
    scheme: stamp.scheme,
    signature: stamp.signature,
  });
  return encodeBase64url(utf8ToBytes(json));
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true });

/**
 * Strict decoder for the `X-Stamp` header (DESIGN §3.2). A stamp has exactly one encoding: base64url
 * without padding of the compact JSON `{publicKey, scheme, signature}` in that order, lowercase hex, and
 * a minimal (strict) DER signature. Anything else that still decodes to a stamp (padding, upper-case hex,
 * re-spaced or re-ordered JSON, extra members) is refused with code `STAMP_NOT_CANONICAL`; a DER that is
 * not minimal does not parse (`INVALID_STAMP`). Either s is accepted: WebCrypto, node:crypto and so Turnkey's own
 * `@turnkey/api-key-stamper` sign P-256 without normalising it, so half their signatures have a high s.
 * A signature and its mirror (r, n - s) are two stamps of one body; nothing may key on a stamp's text
 * for that reason, and the service's replay ledger keys on the signed body. Malformed headers are
 * refused with `INVALID_STAMP`.
 */
export function decodeStamp(headerValue: string): ApiKeyStamp {
  if (typeof headerValue !== "string" || headerValue.length === 0) {
    throw new StampFormatError("stamp header is empty");
  }
  if (headerValue.length > MAX_STAMP_HEADER_LENGTH) throw new StampFormatError("stamp header is too long");
  const unpadded = headerValue.replace(/={1,2}$/, "");
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64url(unpadded);
  } catch {
    throw new StampFormatError("stamp header is not base64url");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Strict.decode(bytes));
  } catch {
    throw new StampFormatError("stamp header is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new StampFormatError("stamp is not a JSON object");
  }
  const { publicKey, scheme, signature } = parsed as Record<string, unknown>;
  if (typeof publicKey !== "string" || !COMPRESSED_KEY_HEX.test(publicKey.toLowerCase())) {
    throw new StampFormatError("stamp publicKey must be a compressed P-256 key in hex");
  }
  if (scheme !== STAMP_SCHEME) throw new StampFormatError(`stamp scheme must be ${STAMP_SCHEME}`);
  if (typeof signature !== "string" || !DER_SIGNATURE_HEX.test(signature.toLowerCase())) {
    throw new StampFormatError("stamp signature must be a DER signature in hex");
  }
  const stamp: ApiKeyStamp = {
    publicKey: publicKey.toLowerCase(),
    scheme,
    signature: signature.toLowerCase(),
  };
  try {
    // noble's DER parser is strict: a non-minimal length or integer is an error, not an alias. A high s
    // is a valid signature (see above), not an alias to refuse.
    p256.Signature.fromBytes(fromHex(stamp.signature), "der");
  } catch {
    throw new StampFormatError("stamp signature is not a DER P-256 signature");
  }
  if (encodeStamp(stamp) !== headerValue) {
    throw new StampFormatError(
      "stamp must be base64url without padding of the compact JSON {publicKey, scheme, signature}, lowercase hex",
      { code: "STAMP_NOT_CANONICAL" },
    );
  }
  return stamp;
}

/** ECDSA-P256 over sha256(message): RFC 6979 deterministic, low-s, DER encoded. */
export function signP256Der(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  if (!isBytes(privateKey) || privateKey.length !== 32) {
    throw new TypeError("P-256 private key must be 32 bytes");
  }
  return p256.sign(sha256(message), privateKey, { prehash: false, lowS: true }).toBytes("der");
}

/** Stamps a request body with an API key; the signature covers the exact UTF-8 bytes of `body`. */
export function stampWithPrivateKey(body: string, privateKey: Uint8Array): StampHeader {
  const stamp: ApiKeyStamp = {
    publicKey: toHex(p256PublicKeyFromPrivate(privateKey, true)),
    scheme: STAMP_SCHEME,
    signature: toHex(signP256Der(utf8ToBytes(body), privateKey)),
  };
  return { stampHeaderName: STAMP_HEADER_NAME, stampHeaderValue: encodeStamp(stamp) };
}

/**
 * Reference verifier (noble). High-s signatures are accepted on purpose: WebCrypto in browsers does not
 * normalise s, and the server's node:crypto verifier (OpenSSL) accepts them too. Never throws.
 */
export function verifyApiKeyStamp(body: string, stamp: ApiKeyStamp): boolean {
  try {
    if (stamp.scheme !== STAMP_SCHEME) return false;
    if (!COMPRESSED_KEY_HEX.test(stamp.publicKey.toLowerCase())) return false;
    const signature = fromHex(stamp.signature);
    const publicKey = fromHex(stamp.publicKey);
    return p256.verify(signature, sha256(utf8ToBytes(body)), publicKey, {
      prehash: false,
      lowS: false,
      format: "der",
    });
  } catch {
    return false;
  }
}

/** DER → 64-byte r‖s (the format WebCrypto signs and verifies). Strict DER; r and s must be in [1, n-1]. */
export function derToCompactP256(der: Uint8Array): Uint8Array {
  try {
    return p256.Signature.fromBytes(der, "der").toBytes("compact");
  } catch (cause) {
    throw new TypeError("invalid DER P-256 signature", { cause });
  }
}

/** 64-byte r‖s → minimal DER. s is kept as is (no low-s normalisation), so the signature stays valid. */
export function compactToDerP256(compact: Uint8Array): Uint8Array {
  if (!isBytes(compact) || compact.length !== COMPACT_LENGTH) {
    throw new TypeError("compact P-256 signature must be 64 bytes");
  }
  try {
    return p256.Signature.fromBytes(compact, "compact").toBytes("der");
  } catch (cause) {
    throw new TypeError("invalid compact P-256 signature", { cause });
  }
}

/**
 * 64-byte r‖s → minimal DER with s replaced by n - s when it is high (the same signature, mirrored).
 * WebCrypto signs with either s and the service accepts both; our clients send the low one, as
 * verifiers that insist on low s (libsecp256k1-style, some HSMs) would want.
 */
export function compactToCanonicalDerP256(compact: Uint8Array): Uint8Array {
  if (!isBytes(compact) || compact.length !== COMPACT_LENGTH) {
    throw new TypeError("compact P-256 signature must be 64 bytes");
  }
  try {
    return p256.Signature.fromBytes(compact, "compact").normalizeS().toBytes("der");
  } catch (cause) {
    throw new TypeError("invalid compact P-256 signature", { cause });
  }
}
