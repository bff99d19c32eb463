import { createPublicKey, type KeyObject, verify } from "node:crypto";

// SubjectPublicKeyInfo header for a compressed P-256 point; OpenSSL decompresses it for us.
const SPKI_P256_COMPRESSED = Buffer.from("3039301306072a8648ce3d020106082a8648ce3d030107032200", "hex");
const cache = new Map<string, KeyObject>();
const CACHE_MAX = 10_000;

function keyObject(compressedHex: string): KeyObject {
  let key = cache.get(compressedHex);
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([SPKI_P256_COMPRESSED, Buffer.from(compressedHex, "hex")]),
      format: "der",
      type: "spki",
    });
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(compressedHex, key);
  }
  return key;
}

/**
 * ECDSA-P256-SHA256 over the raw body bytes, DER signature: node's OpenSSL verify is ~30x faster than a
 * JS one, and the stamp check sits on every signing request.
 */
export function verifyP256Der(
  body: Buffer | string,
  compressedPublicKeyHex: string,
  derSignatureHex: string,
): boolean {
  try {
    return verify(
      "sha256",
      typeof body === "string" ? Buffer.from(body) : body,
      { key: keyObject(compressedPublicKeyHex), dsaEncoding: "der" },
      Buffer.from(derSignatureHex, "hex"),
    );
  } catch {
    return false;
  }
}
