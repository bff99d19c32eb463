import { createHash, createHmac, createPrivateKey, sign as nodeSign, pbkdf2, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { base58 } from "@scure/base";
import { wordlist } from "@scure/bip39/wordlists/english";
import { bip39Seeds } from "./pbkdf2";
import { secp256k1Impl } from "./secp256k1";

export const EVM_PATH = "m/44'/60'/0'/0/0";
export const SOLANA_PATH = "m/44'/501'/0'/0'";

export interface DerivedAccount {
  curve: "CURVE_SECP256K1" | "CURVE_ED25519";
  path: string;
  addressFormat: "ADDRESS_FORMAT_ETHEREUM" | "ADDRESS_FORMAT_SOLANA";
  address: string;
  publicKey: string;
  privateKey: Uint8Array;
}

/** A fresh 12-word BIP-39 mnemonic (128 bits of entropy). */
export function newMnemonic(): string {
  return entropyToMnemonic(randomBytes(16));
}

/**
 * BIP-39's words for `entropy` (16–32 bytes, a multiple of 4): the entropy and the first bits of its
 * SHA-256, cut into 11-bit indices of the English list. Same words as @scure/bip39, which rebuilds its
 * radix and alphabet coders on every call (~300 µs of a sign-up's CPU; this is ~5 µs).
 */
export function entropyToMnemonic(entropy: Uint8Array): string {
  const n = entropy.length;
  if (n < 16 || n > 32 || n % 4 !== 0) throw new Error("BIP-39 entropy is 16, 20, 24, 28 or 32 bytes");
  const checksum = createHash("sha256").update(entropy).digest()[0] ?? 0;
  const words: string[] = [];
  let acc = 0;
  let bits = 0;
  const push = (byte: number, width: number) => {
    acc = (acc << width) | byte;
    bits += width;
    while (bits >= 11) {
      bits -= 11;
      words.push(wordlist[(acc >>> bits) & 0x7ff] as string);
      acc &= (1 << bits) - 1;
    }
  };
  for (const byte of entropy) push(byte, 8);
  const checksumBits = n / 4; // ENT / 32
  push(checksum >>> (8 - checksumBits), checksumBits);
  return words.join(" ");
}

/** BIP-39 seed: by the native addon where it loads, else node:crypto (pbkdf2.ts); both ~10x a JS one. */
export function mnemonicToSeed(mnemonic: string, passphrase = ""): Buffer {
  return bip39Seeds([mnemonic], passphrase)[0] as Buffer;
}

const pbkdf2Async = promisify(pbkdf2);

/** The same seed, computed on libuv's thread pool so sign-ups do not hold the event loop. */
export function mnemonicToSeedAsync(mnemonic: string, passphrase = ""): Promise<Buffer> {
  return pbkdf2Async(
    mnemonic.normalize("NFKD"),
    `mnemonic${passphrase}`.normalize("NFKD"),
    2048,
    64,
    "sha512",
  );
}

const N = secp256k1.CURVE.n;
const HARDENED = 0x80000000;

/**
 * BIP-32 private derivation. Only non-hardened steps need the parent's public key, so a path such as
 * m/44'/60'/0'/0/0 costs two point multiplications instead of one per level (plus fingerprints).
 */
export function bip32DerivePrivateKey(seed: Uint8Array, path: string): Uint8Array {
  let I = createHmac("sha512", "Bitcoin seed").update(seed).digest();
  let key = BigInt(`0x${I.subarray(0, 32).toString("hex")}`);
  let chain = I.subarray(32);
  if (key === 0n || key >= N) throw new Error("Invalid master key");
  for (const part of path.split("/").slice(1)) {
    const hardened = part.endsWith("'");
    const index = (Number(hardened ? part.slice(0, -1) : part) + (hardened ? HARDENED : 0)) >>> 0;
    const keyBytes = Buffer.from(key.toString(16).padStart(64, "0"), "hex");
    const data = hardened
      ? Buffer.concat([Buffer.alloc(1), keyBytes, u32(index)])
      : Buffer.concat([Buffer.from(secp256k1Impl().publicKey(keyBytes, true)), u32(index)]);
    I = createHmac("sha512", chain).update(data).digest();
    const tweak = BigInt(`0x${I.subarray(0, 32).toString("hex")}`);
    if (tweak >= N) throw new Error("Invalid child key (skip index)");
    key = (tweak + key) % N;
    if (key === 0n) throw new Error("Invalid child key (skip index)");
    chain = I.subarray(32);
  }
  return new Uint8Array(Buffer.from(key.toString(16).padStart(64, "0"), "hex"));
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export function toChecksumAddress(addressHex: string): string {
  const lower = addressHex.toLowerCase().replace(/^0x/, "");
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    const ch = lower[i] ?? "";
    out += nibble >= 8 ? ch.toUpperCase() : ch;
  }
  return out;
}

export function evmAddressFromPrivateKey(privateKey: Uint8Array): { address: string; publicKey: string } {
  const pub = secp256k1Impl().publicKey(privateKey, false);
  const hash = keccak_256(pub.subarray(1));
  return { address: toChecksumAddress(Buffer.from(hash.subarray(12)).toString("hex")), publicKey: hex(pub) };
}

/** SLIP-0010 ed25519 derivation (hardened steps only, as Solana paths are). */
export function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  let I = createHmac("sha512", "ed25519 seed").update(seed).digest();
  let key = I.subarray(0, 32);
  let chain = I.subarray(32);
  for (const part of path.split("/").slice(1)) {
    if (!part.endsWith("'")) throw new Error("ed25519 derivation needs hardened indices");
    const index = (Number(part.slice(0, -1)) + 0x80000000) >>> 0;
    const data = Buffer.alloc(37);
    key.copy(data, 1);
    data.writeUInt32BE(index, 33);
    I = createHmac("sha512", chain).update(data).digest();
    key = I.subarray(0, 32);
    chain = I.subarray(32);
  }
  return new Uint8Array(key);
}

const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * The seed as a node KeyObject. Imported as a JWK, not as PKCS#8: OpenSSL 3's DER decoders cost ~500 µs
 * a key here, the raw-key path ~40 µs. Node reads `d` alone for a private OKP key; `x` must be a string
 * and is recomputed from `d` (checked against RFC 8032 and the DER path in wallet.test.ts).
 */
function ed25519KeyObject(seed: Uint8Array) {
  try {
    return createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(seed).toString("base64url"), x: "" },
      format: "jwk",
    });
  } catch {
    // A node that checks `x` against `d`: the slower, always-accepted PKCS#8 path.
    return createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
      format: "der",
      type: "pkcs8",
    });
  }
}

/** The ed25519 public key of a 32-byte seed. */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const { x } = ed25519KeyObject(seed).export({ format: "jwk" });
  return new Uint8Array(Buffer.from(x as string, "base64url"));
}

/** The accounts of a new wallet: one EVM (secp256k1) and one Solana (ed25519) account. */
export function deriveAccounts(mnemonic: string): DerivedAccount[] {
  return accountsFromSeed(mnemonicToSeed(mnemonic));
}

/**
 * The accounts of several new wallets, in order. The addon computes their seeds together, several per
 * run (pbkdf2.ts): the wallet worker hands it every wallet waiting at once.
 */
export function deriveAccountsBatch(mnemonics: readonly string[]): DerivedAccount[][] {
  return bip39Seeds(mnemonics).map(accountsFromSeed);
}

export async function deriveAccountsAsync(mnemonic: string): Promise<DerivedAccount[]> {
  return accountsFromSeed(await mnemonicToSeedAsync(mnemonic));
}

function accountsFromSeed(seed: Uint8Array): DerivedAccount[] {
  const evmKey = bip32DerivePrivateKey(seed, EVM_PATH);
  const evm = evmAddressFromPrivateKey(evmKey);
  const solKey = slip10Ed25519(seed, SOLANA_PATH);
  const solPub = ed25519PublicKey(solKey);
  return [
    {
      curve: "CURVE_SECP256K1",
      path: EVM_PATH,
      addressFormat: "ADDRESS_FORMAT_ETHEREUM",
      address: evm.address,
      publicKey: evm.publicKey,
      privateKey: evmKey,
    },
    {
      curve: "CURVE_ED25519",
      path: SOLANA_PATH,
      addressFormat: "ADDRESS_FORMAT_SOLANA",
      address: base58.encode(solPub),
      publicKey: hex(solPub),
      privateKey: solKey,
    },
  ];
}

/** secp256k1 over a 32-byte digest: RFC 6979 deterministic, low-s, with the recovery id. */
export function signSecp256k1(
  digest: Uint8Array,
  privateKey: Uint8Array,
): { r: string; s: string; v: number } {
  const sig = secp256k1Impl().sign(digest, privateKey);
  return { r: hex(sig.r), s: hex(sig.s), v: sig.recovery };
}

export function signEd25519(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return new Uint8Array(nodeSign(null, message, ed25519KeyObject(seed)));
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}
