import { p256 } from "@noble/curves/nist";
import { isBytes } from "./hex";

const PRIVATE_KEY_LENGTH = 32;
const COMPRESSED_LENGTH = 33;
const UNCOMPRESSED_LENGTH = 65;

function assertPrivateKey(privateKey: Uint8Array): void {
  if (!isBytes(privateKey) || privateKey.length !== PRIVATE_KEY_LENGTH) {
    throw new TypeError("P-256 private key must be 32 bytes");
  }
}

// Point.fromBytes checks that the point is on the curve (and not infinity), so every helper that
// goes through it also validates untrusted input.
function parsePoint(pub: Uint8Array) {
  if (!isBytes(pub) || (pub.length !== COMPRESSED_LENGTH && pub.length !== UNCOMPRESSED_LENGTH)) {
    throw new TypeError("P-256 public key must be 33 (compressed) or 65 (uncompressed) bytes");
  }
  try {
    return p256.Point.fromBytes(pub);
  } catch {
    throw new TypeError("P-256 public key is not a point on the curve");
  }
}

/** SEC1 public key of a 32-byte private key; throws if the scalar is 0 or not below the group order. */
export function p256PublicKeyFromPrivate(privateKey: Uint8Array, compressed: boolean): Uint8Array {
  assertPrivateKey(privateKey);
  return p256.getPublicKey(privateKey, compressed);
}

/**
 * Both SEC1 forms of a private key's public key, for a one-off use (a page opening one credential
 * bundle). `p256PublicKeyFromPrivate` multiplies the base point through noble's window table (4,224
 * points, built on the first call in each JS realm: 100–400 ms in a fresh browser page), which pays off
 * only over many keys; here one constant-time multiplication runs on a copy of the base point, which
 * has no table (about an eighth of that work). Throws like `p256PublicKeyFromPrivate`.
 */
export function p256PublicKeysOnce(privateKey: Uint8Array): {
  uncompressed: Uint8Array;
  compressed: Uint8Array;
} {
  assertPrivateKey(privateKey);
  const scalar = p256.utils.normPrivateKeyToScalar(privateKey);
  const point = p256.Point.fromAffine(p256.Point.BASE.toAffine()).multiply(scalar);
  return { uncompressed: point.toBytes(false), compressed: point.toBytes(true) };
}

// The field prime and the curve's b (SEC 2 §2.4.2, FIPS 186-4 D.1.2.3); a = −3.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * Whether `pub` is a 33- or 65-byte SEC1 point on P-256. The uncompressed form is checked with the curve
 * equation y² = x³ − 3x + b (mod p) directly: noble's point parser costs ~100 µs, this ~3 µs, and every
 * sign-up checks one. The compressed form is decompressed by noble (which is the check).
 */
export function isP256PublicKey(pub: Uint8Array): boolean {
  if (!isBytes(pub)) return false;
  if (pub.length === UNCOMPRESSED_LENGTH && pub[0] === 4) {
    const x = bytesToBigInt(pub, 1);
    const y = bytesToBigInt(pub, 33);
    if (x >= P || y >= P) return false;
    const rhs = (((x * x) % P) * x - 3n * x + B) % P;
    return (y * y) % P === (rhs + P) % P;
  }
  if (pub.length !== COMPRESSED_LENGTH) return false;
  try {
    parsePoint(pub);
    return true;
  } catch {
    return false;
  }
}

function bytesToBigInt(bytes: Uint8Array, offset: number): bigint {
  let hex = "0x";
  for (let i = offset; i < offset + 32; i++)
    hex += ((bytes[i] as number) < 16 ? "0" : "") + (bytes[i] as number).toString(16);
  return BigInt(hex);
}

/** Compressed (33-byte) form of a 33- or 65-byte SEC1 public key; throws if not on the curve. */
export function compressP256PublicKey(pub: Uint8Array): Uint8Array {
  return parsePoint(pub).toBytes(true);
}

/** Uncompressed (65-byte, `04…`) form of a 33- or 65-byte SEC1 public key; throws if not on the curve. */
export function uncompressP256PublicKey(pub: Uint8Array): Uint8Array {
  return parsePoint(pub).toBytes(false);
}

/** A fresh 32-byte private key from the platform CSPRNG, uniformly reduced into [1, n-1]. */
export function generateP256PrivateKey(): Uint8Array {
  return p256.utils.randomSecretKey();
}
