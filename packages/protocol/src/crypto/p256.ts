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
