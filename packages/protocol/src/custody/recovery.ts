import { hkdf } from "@noble/hashes/hkdf";
import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { decodeBase64url, encodeBase64url } from "../crypto/base64url";

/**
 * The user share kept by the service for a new device, encrypted under a key only the user can produce:
 * a passkey's PRF output or a recovery code shown once (docs/split-custody.md §4). The service stores the
 * blob and cannot open it.
 */
export type RecoveryKind = "passkey" | "code";

/** What the service stores: base64url fields, versioned. */
export interface RecoveryBlob {
  v: 1;
  salt: string;
  iv: string;
  ciphertext: string;
}

export class RecoveryError extends Error {
  override name = "RecoveryError";
}

const INFO = (walletId: string) => utf8ToBytes(`latchkey_recovery_v1:${walletId}`);

/** The PRF extension's eval input for a wallet: the same on every device, so the passkey gives one key. */
export function recoveryPrfSalt(walletId: string): Uint8Array {
  return sha256(INFO(walletId));
}

// Crockford base32: no I, L, O, U, so a code read aloud or retyped is not misread.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_BYTES = 20;

/** A recovery code of 160 random bits: 32 characters in 8 groups of 4 (`7K2M-…`). */
export function newRecoveryCode(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(CODE_BYTES));
  let bits = 0;
  let acc = 0;
  let out = "";
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >>> bits) & 31];
      acc &= (1 << bits) - 1;
    }
  }
  bytes.fill(0);
  return (out.match(/.{4}/g) ?? []).join("-");
}

/**
 * The 20 bytes of a recovery code; case, spaces and dashes are ignored, and O/I/L read as 0/1/1 (Crockford).
 * Throws RecoveryError when it is not a code.
 */
export function recoveryCodeBytes(code: string): Uint8Array {
  const clean = code.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (clean.length !== 32 || [...clean].some((c) => !ALPHABET.includes(c))) {
    throw new RecoveryError("a recovery code is 32 letters and digits");
  }
  const out = new Uint8Array(CODE_BYTES);
  let bits = 0;
  let acc = 0;
  let at = 0;
  for (const c of clean) {
    acc = (acc << 5) | ALPHABET.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >>> bits) & 0xff;
      acc &= (1 << bits) - 1;
    }
  }
  return out;
}

async function aesKey(
  ikm: Uint8Array,
  salt: Uint8Array,
  walletId: string,
  usage: KeyUsage,
): Promise<CryptoKey> {
  // The inputs carry ≥ 128 bits of entropy (a PRF output, a 160-bit code): HKDF, no password stretching.
  const raw = hkdf(sha256, ikm, salt, INFO(walletId), 32);
  try {
    return await globalThis.crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, "AES-GCM", false, [
      usage,
    ]);
  } finally {
    raw.fill(0);
  }
}

/** The user share encrypted under `ikm` (a PRF output or a code's bytes), bound to the wallet. */
export async function encryptRecoveryShare(args: {
  userShare: Uint8Array;
  walletId: string;
  ikm: Uint8Array;
}): Promise<RecoveryBlob> {
  if (args.ikm.length < 16) throw new RecoveryError("the recovery key needs at least 128 bits");
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const key = await aesKey(args.ikm, salt, args.walletId, "encrypt");
  const ciphertext = new Uint8Array(
    await globalThis.crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: utf8ToBytes(args.walletId) as Uint8Array<ArrayBuffer> },
      key,
      args.userShare as Uint8Array<ArrayBuffer>,
    ),
  );
  return {
    v: 1,
    salt: encodeBase64url(salt),
    iv: encodeBase64url(iv),
    ciphertext: encodeBase64url(ciphertext),
  };
}

/** Inverse of {@link encryptRecoveryShare}; RecoveryError when the key is not the one it was made with. */
export async function decryptRecoveryShare(args: {
  blob: RecoveryBlob;
  walletId: string;
  ikm: Uint8Array;
}): Promise<Uint8Array> {
  const { blob } = args;
  if (blob?.v !== 1) throw new RecoveryError("unknown recovery blob version");
  let salt: Uint8Array;
  let iv: Uint8Array<ArrayBuffer>;
  let ciphertext: Uint8Array<ArrayBuffer>;
  try {
    salt = decodeBase64url(blob.salt);
    iv = decodeBase64url(blob.iv);
    ciphertext = decodeBase64url(blob.ciphertext);
  } catch {
    throw new RecoveryError("the recovery blob is not base64url");
  }
  const key = await aesKey(args.ikm, salt, args.walletId, "decrypt");
  try {
    return new Uint8Array(
      await globalThis.crypto.subtle.decrypt(
        { name: "AES-GCM", iv, additionalData: utf8ToBytes(args.walletId) as Uint8Array<ArrayBuffer> },
        key,
        ciphertext,
      ),
    );
  } catch {
    throw new RecoveryError("this passkey or code does not open the wallet's recovery share");
  }
}
