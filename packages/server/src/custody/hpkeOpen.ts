import { createDecipheriv, createECDH, createHmac, type ECDH } from "node:crypto";
import type { HpkeOpenArgs } from "@latchkey/protocol/custody";

/**
 * RFC 9180 base-mode open of the bundle suite — DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, aad
 * enc ‖ pkR ‖ aad — in one synchronous pass of node:crypto (ECDH on the share key's ECDH object, HMAC,
 * AES-GCM): the same bytes as protocol's hpkeOpenBase (@hpke/core), without its WebCrypto round trips
 * through the thread pool and its key imports, which were most of a split-custody signature's extra time
 * (the service opens a user share on every one). Checked against RFC 9180's A.3 inputs and against @hpke/core's seal (hpkeOpen.test.ts).
 * Throws on any failure; the caller maps it to its own error.
 */
export function hpkeOpenP256(args: HpkeOpenArgs<ECDH>): Uint8Array {
  return openBase({ ...args, aad: concat(args.enc, args.recipientPublicKey, args.aad) });
}

/** RFC 9180 §5.1.1 SetupBaseR then ContextR.Open at sequence number 0, with `aad` as given. */
export function openBase(args: HpkeOpenArgs<ECDH>): Uint8Array {
  const { enc, recipientPublicKey: pkR } = args;
  if (enc.length !== 65 || enc[0] !== 0x04 || pkR.length !== 65 || pkR[0] !== 0x04) {
    throw new TypeError("enc and the recipient key must be uncompressed P-256 points");
  }
  // OpenSSL refuses a point off the curve ("Public key is not valid for specified curve").
  const dh = args.recipientPrivateKey.computeSecret(enc);
  const kemSuite = KEM_SUITE;
  const eaePrk = labeledExtract(kemSuite, EMPTY, "eae_prk", dh);
  const sharedSecret = labeledExpand(kemSuite, eaePrk, "shared_secret", concat(enc, pkR), 32);
  dh.fill(0);
  const suite = HPKE_SUITE;
  const context = concat(MODE_BASE, PSK_ID_HASH, labeledExtract(suite, EMPTY, "info_hash", utf8(args.info)));
  const secret = labeledExtract(suite, sharedSecret, "secret", EMPTY);
  const key = labeledExpand(suite, secret, "key", context, 32);
  // Sequence number 0: the nonce is the base nonce.
  const nonce = labeledExpand(suite, secret, "base_nonce", context, 12);
  sharedSecret.fill(0);
  secret.fill(0);
  const { ciphertext } = args;
  if (ciphertext.length < TAG_LENGTH) throw new TypeError("the ciphertext is shorter than its tag");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAAD(args.aad);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LENGTH));
    const head = decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_LENGTH));
    const plaintext = concat(head, decipher.final());
    head.fill(0);
    return plaintext;
  } finally {
    key.fill(0);
  }
}

/**
 * The share key's 32-byte P-256 scalar as the ECDH object {@link hpkeOpenP256} takes: made once and reused
 * (computeSecret does not change it), so each open is one scalar multiplication with no key import.
 */
export function p256Ecdh(scalar: Uint8Array): ECDH {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(scalar);
  return ecdh;
}

const TAG_LENGTH = 16;
const EMPTY = new Uint8Array();
const MODE_BASE = new Uint8Array([0]);
const KEM_ID = new Uint8Array([0x00, 0x10]);
const KDF_ID = new Uint8Array([0x00, 0x01]);
const AEAD_ID = new Uint8Array([0x00, 0x02]);
const HPKE_V1 = utf8("HPKE-v1");
const ONE = new Uint8Array([1]);
const KEM_SUITE = concat(utf8("KEM"), KEM_ID);
const HPKE_SUITE = concat(utf8("HPKE"), KEM_ID, KDF_ID, AEAD_ID);
// Mode base has no PSK: its psk_id_hash is the same for every open, so it is made once.
const PSK_ID_HASH = labeledExtract(HPKE_SUITE, EMPTY, "psk_id_hash", EMPTY);

// HKDF-SHA256 (RFC 5869) on node:crypto's HMAC: an empty salt is HashLen zeros, which HMAC pads to anyway.
function extract(salt: Uint8Array, ikm: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac("sha256", salt).update(ikm).digest());
}

// One block is all this suite expands (Nsecret and Nk 32, Nn 12): T(1) = HMAC(prk, info ‖ 0x01).
function expand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (length > 32) throw new RangeError("expand: at most one SHA-256 block");
  const block = createHmac("sha256", prk).update(info).update(ONE).digest();
  return new Uint8Array(block.subarray(0, length));
}

function labeledExtract(suite: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return extract(salt, concat(HPKE_V1, suite, utf8(label), ikm));
}

function labeledExpand(
  suite: Uint8Array,
  prk: Uint8Array,
  label: string,
  info: Uint8Array,
  length: number,
): Uint8Array {
  const labeled = concat(new Uint8Array([length >> 8, length & 0xff]), HPKE_V1, suite, utf8(label), info);
  return expand(prk, labeled, length);
}

function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
