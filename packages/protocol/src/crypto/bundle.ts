import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core";
import { expand, extract } from "@noble/hashes/hkdf";
import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { createBase58check } from "@scure/base";
import { base58Decode } from "./base58";
import { BundleError } from "./errors";
import { concatBytes, fromHex, isBytes, toHex } from "./hex";
import { compressP256PublicKey, isP256PublicKey, uncompressP256PublicKey } from "./p256";

/** HPKE `info` of Turnkey-compatible bundles (DESIGN §3.4). */
export const HPKE_INFO = "turnkey_hpke";

const COMPRESSED_ENC_LENGTH = 33;
const GCM_TAG_LENGTH = 16;
const PRIVATE_KEY_LENGTH = 32;
// A credential bundle is ~116 chars; base58 decoding is quadratic, so bound hostile input.
const MAX_BUNDLE_CHARS = 4096;

const asBytes = (v: ArrayBufferLike | ArrayBufferView): Uint8Array =>
  ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
const asArrayBuffer = (b: Uint8Array): ArrayBuffer => b.slice().buffer as ArrayBuffer;

/**
 * The suite's HKDF-SHA256 with @noble/hashes' HKDF (audited, synchronous) in place of @hpke/core's
 * WebCrypto HMAC: the same bytes (RFC 5869; hpke.test.ts checks the RFC 9180 vectors through it), without
 * the two asynchronous WebCrypto calls per HMAC that made the key schedule most of an open's time (the
 * service opens a user share on every split-custody signature). Labels and the suite id stay @hpke/core's.
 */
export class NobleHkdfSha256 extends HkdfSha256 {
  override async extract(
    salt: ArrayBufferLike | ArrayBufferView,
    ikm: ArrayBufferLike | ArrayBufferView,
  ): Promise<ArrayBuffer> {
    const s = asBytes(salt);
    if (s.length !== 0 && s.length !== 32)
      throw new Error("The salt length must be the same as the hashSize");
    return asArrayBuffer(extract(sha256, asBytes(ikm), s.length ? s : undefined));
  }
  override async expand(
    prk: ArrayBufferLike | ArrayBufferView,
    info: ArrayBufferLike | ArrayBufferView,
    len: number,
  ): Promise<ArrayBuffer> {
    return asArrayBuffer(expand(sha256, asBytes(prk), asBytes(info), len));
  }
}

// The recipients' public keys as @hpke/core's CryptoKeys, by hex: a receiver opens many bundles with one
// key (the service's share key, on every split-custody signature), and importing the point costs as much
// as the rest of the open. Public values only; a few at most.
const recipientPublicKeys = new Map<string, Promise<CryptoKey>>();
function recipientPublicKeyOf(s: CipherSuite, pkR: Uint8Array): Promise<CryptoKey> {
  const hex = toHex(pkR);
  let key = recipientPublicKeys.get(hex);
  if (!key) {
    if (recipientPublicKeys.size >= 16) recipientPublicKeys.clear();
    key = s.kem.deserializePublicKey(pkR);
    recipientPublicKeys.set(hex, key);
    key.catch(() => recipientPublicKeys.delete(hex));
  }
  return key;
}

// Built on first use so that importing this module does nothing.
let suite: CipherSuite | undefined;
function getSuite(): CipherSuite {
  suite ??= new CipherSuite({
    kem: new DhkemP256HkdfSha256(),
    kdf: new NobleHkdfSha256(),
    aead: new Aes256Gcm(),
  });
  return suite;
}

let base58check: ReturnType<typeof createBase58check> | undefined;
function getBase58check(): ReturnType<typeof createBase58check> {
  base58check ??= createBase58check(sha256);
  return base58check;
}

/** base58(payload ‖ sha256(sha256(payload))[0..4]), the Bitcoin/bs58check encoding Turnkey uses. */
export function base58checkEncode(bytes: Uint8Array): string {
  return getBase58check().encode(bytes);
}

/** Inverse of {@link base58checkEncode}; throws BundleError on a bad alphabet or checksum. */
export function base58checkDecode(s: string): Uint8Array {
  try {
    return getBase58check().decode(s);
  } catch (cause) {
    throw new BundleError("bundle is not valid base58check", { cause });
  }
}

/** A P-256 point as 65 uncompressed bytes: an uncompressed one is checked with the curve equation only. */
function asUncompressed(pub: Uint8Array): Uint8Array {
  return isP256PublicKey(pub) && pub.length === 65 ? pub : uncompressP256PublicKey(pub);
}

function parseTargetPublicKey(hex: string): Uint8Array {
  try {
    return asUncompressed(fromHex(hex));
  } catch (cause) {
    throw new TypeError("targetPublicKey must be a P-256 public key in hex (33 or 65 bytes)", { cause });
  }
}

const subtle = (): SubtleCrypto | undefined => globalThis.crypto?.subtle;

/** sha256(sha256(bytes)), with the platform's SHA-256 where there is one. */
async function doubleSha256(bytes: Uint8Array): Promise<Uint8Array> {
  const s = subtle();
  if (!s) return sha256(sha256(bytes));
  const once = await s.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(await s.digest("SHA-256", once));
}

/**
 * {@link base58checkDecode} for the one bundle a page opens: a plain base58 loop and the platform's
 * SHA-256, which cost well under a millisecond in a fresh page where the generic codec took 3–11 ms.
 */
async function base58checkDecodeOnce(text: string): Promise<Uint8Array> {
  const raw = base58Decode(text);
  if (!raw || raw.length < 4) throw new BundleError("bundle is not valid base58check");
  const payload = raw.subarray(0, raw.length - 4);
  const sum = await doubleSha256(payload);
  for (let i = 0; i < 4; i++)
    if (sum[i] !== raw[payload.length + i]) throw new BundleError("bundle is not valid base58check");
  return payload;
}

/**
 * A compressed point made whole by the platform's crypto where it takes compressed points (Chromium,
 * WebKit, node: microseconds); elsewhere by noble's square root, which a fresh page runs cold (1–10 ms).
 * Both refuse a point off the curve.
 */
async function uncompressOnce(compressed: Uint8Array): Promise<Uint8Array> {
  const s = subtle();
  if (s) {
    try {
      const key = await s.importKey(
        "raw",
        compressed as Uint8Array<ArrayBuffer>,
        { name: "ECDH", namedCurve: "P-256" },
        true,
        [],
      );
      const raw = new Uint8Array(await s.exportKey("raw", key));
      if (raw.length === 65) return raw;
    } catch {
      // This platform takes uncompressed points only, or the point is bad: noble decides below.
    }
  }
  return uncompressP256PublicKey(compressed);
}

async function importRecipientPrivateKey(key: Uint8Array | CryptoKey): Promise<CryptoKey> {
  if (isBytes(key)) {
    if (key.length !== PRIVATE_KEY_LENGTH) throw new TypeError("target private key must be 32 bytes");
    try {
      return await getSuite().kem.deserializePrivateKey(key);
    } catch (cause) {
      throw new TypeError("target private key is not a valid P-256 scalar", { cause });
    }
  }
  const algorithm = key.algorithm as EcKeyAlgorithm;
  if (key.type !== "private" || algorithm.name !== "ECDH" || algorithm.namedCurve !== "P-256") {
    throw new TypeError("target private key must be an ECDH P-256 private CryptoKey");
  }
  return key;
}

/**
 * HPKE base-mode seal with the bundle suite: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM,
 * info "turnkey_hpke", aad = enc ‖ pkR (both 65-byte uncompressed), as Turnkey's enclaves do.
 * `recipientPublicKey` may be compressed or uncompressed; it is validated to be on the curve.
 */
export async function hpkeSealBase(args: {
  plaintext: Uint8Array;
  recipientPublicKey: Uint8Array;
  /** Another use's `info` (default "turnkey_hpke"), so a ciphertext of one use never opens as another. */
  info?: string;
  /** Extra associated data, appended to enc ‖ pkR (e.g. a hash binding the ciphertext to a request). */
  aad?: Uint8Array;
}): Promise<{ enc: Uint8Array; ciphertext: Uint8Array }> {
  const pkR = asUncompressed(args.recipientPublicKey);
  const s = getSuite();
  const recipientPublicKey = await s.kem.deserializePublicKey(pkR);
  const sender = await s.createSenderContext({
    recipientPublicKey,
    info: utf8ToBytes(args.info ?? HPKE_INFO),
  });
  const enc = new Uint8Array(sender.enc);
  const aad = args.aad ? concatBytes(enc, pkR, args.aad) : concatBytes(enc, pkR);
  const ciphertext = new Uint8Array(await sender.seal(args.plaintext, aad));
  return { enc, ciphertext };
}

/**
 * Inverse of {@link hpkeSealBase}. `enc` is the 65-byte uncompressed encapsulated key. Throws
 * BundleError when the ciphertext does not open (wrong key, tampering); TypeError on bad key inputs.
 */
export async function hpkeOpenBase(args: {
  enc: Uint8Array;
  ciphertext: Uint8Array;
  recipientPrivateKey: Uint8Array | CryptoKey;
  recipientPublicKey: Uint8Array;
  /** As given to {@link hpkeSealBase}. */
  info?: string;
  aad?: Uint8Array;
}): Promise<Uint8Array> {
  const pkR = asUncompressed(args.recipientPublicKey);
  const privateKey = await importRecipientPrivateKey(args.recipientPrivateKey);
  const s = getSuite();
  try {
    // Pass the pair, not the bare private key: @hpke/core would otherwise re-derive pkR, which it
    // cannot do exactly for a non-extractable key (its fallback guesses the y parity), breaking the
    // KEM context for about half of all browser-held keys.
    const publicKey = await recipientPublicKeyOf(s, pkR);
    const recipient = await s.createRecipientContext({
      recipientKey: { privateKey, publicKey },
      enc: args.enc,
      info: utf8ToBytes(args.info ?? HPKE_INFO),
    });
    const aad = args.aad ? concatBytes(args.enc, pkR, args.aad) : concatBytes(args.enc, pkR);
    return new Uint8Array(await recipient.open(args.ciphertext, aad));
  } catch (cause) {
    throw new BundleError("bundle could not be decrypted", { cause });
  }
}

/** Seals `plaintext` to the target key; returns base58check(compressed enc ‖ ciphertext ‖ tag). */
export async function sealCredentialBundle(args: {
  plaintext: Uint8Array;
  targetPublicKey: string;
}): Promise<string> {
  const pkR = parseTargetPublicKey(args.targetPublicKey);
  const { enc, ciphertext } = await hpkeSealBase({ plaintext: args.plaintext, recipientPublicKey: pkR });
  return base58checkEncode(concatBytes(compressP256PublicKey(enc), ciphertext));
}

/**
 * Opens a credential bundle with the target key (raw 32 bytes, or an ECDH P-256 CryptoKey that may be
 * non-extractable). `targetPublicKey` (hex, either form) must be the matching public key: it is part of
 * the HPKE context and the aad. Throws BundleError for any defect of the bundle itself.
 */
export async function openCredentialBundle(args: {
  bundle: string;
  targetPrivateKey: Uint8Array | CryptoKey;
  targetPublicKey: string;
}): Promise<Uint8Array> {
  if (typeof args.bundle !== "string" || args.bundle.length > MAX_BUNDLE_CHARS) {
    throw new BundleError("bundle has an invalid length");
  }
  const payload = await base58checkDecodeOnce(args.bundle);
  if (payload.length < COMPRESSED_ENC_LENGTH + GCM_TAG_LENGTH) {
    throw new BundleError("bundle is too short");
  }
  let enc: Uint8Array;
  try {
    enc = await uncompressOnce(payload.subarray(0, COMPRESSED_ENC_LENGTH));
  } catch (cause) {
    throw new BundleError("bundle encapsulated key is not a P-256 point", { cause });
  }
  return hpkeOpenBase({
    enc,
    ciphertext: payload.subarray(COMPRESSED_ENC_LENGTH),
    recipientPrivateKey: args.targetPrivateKey,
    recipientPublicKey: parseTargetPublicKey(args.targetPublicKey),
  });
}

/**
 * A WebCrypto ECDH P-256 target key pair for receiving bundles. With `extractable: false` the private
 * key can never leave the CryptoKey (the browser key holders store it in IndexedDB as is); the public
 * key is always exportable.
 */
export async function generateTargetKeyPair(
  extractable: boolean,
): Promise<{ privateKey: CryptoKey; publicKey: CryptoKey; publicKeyHex: string }> {
  const { privateKey, publicKey } = (await globalThis.crypto.subtle.generateKey(
    { name: "ECDH", namedCurve: "P-256" },
    extractable,
    ["deriveBits"],
  )) as CryptoKeyPair;
  const raw = new Uint8Array(await globalThis.crypto.subtle.exportKey("raw", publicKey));
  return { privateKey, publicKey, publicKeyHex: toHex(raw) };
}
