import { createECDH } from "node:crypto";

/**
 * A fresh P-256 key pair for a session: the raw 32-byte private key (to seal to the browser) and the
 * compressed public key (hex, what the service stores and stamps name). OpenSSL makes the pair in
 * ~50 µs through node's ECDH object; noble's JavaScript `getPublicKey` took ~0.7 ms of each code
 * redemption (`/v1/otp`), and `generateKeyPairSync` with a JWK export ~130 µs.
 *
 * @example
 * const { privateKey, publicKeyHex } = newP256KeyPair();
 */
export function newP256KeyPair(): { privateKey: Uint8Array; publicKeyHex: string } {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const d = ecdh.getPrivateKey();
  // getPrivateKey drops leading zero bytes: the sealed key is always 32.
  const privateKey = new Uint8Array(32);
  privateKey.set(d, 32 - d.length);
  d.fill(0);
  return { privateKey, publicKeyHex: ecdh.getPublicKey("hex", "compressed") };
}
