import { ed25519 } from "@noble/curves/ed25519";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hmac } from "@noble/hashes/hmac";
import { sha512 } from "@noble/hashes/sha2";
import { keccak_256 } from "@noble/hashes/sha3";
import { base58 } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { entropyToMnemonic, mnemonicToEntropy } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { combine, split } from "shamir-secret-sharing";
import { fromHex, toHex } from "../crypto/hex";
import type { ImportSecret } from "../crypto/importSecret";

export const EVM_PATH = "m/44'/60'/0'/0/0";
export const SOLANA_PATH = "m/44'/501'/0'/0'";

export type SecretCurve = "CURVE_SECP256K1" | "CURVE_ED25519";

/** One account of a wallet secret: its curve and its 32-byte private key (ed25519: the seed). */
export interface SecretAccount {
  curve: SecretCurve;
  privateKey: Uint8Array;
}

/**
 * What a wallet is, as one value: the BIP-39 entropy (empty for a wallet made from a private key) and
 * the private keys of its accounts in order. The account keys are kept beside the entropy so that a
 * signature costs a Shamir combine, not PBKDF2 and BIP-32.
 */
export interface WalletSecret {
  entropy: Uint8Array;
  accounts: SecretAccount[];
}

/** An account's public part, as the service stores it (public keys in hex without 0x). */
export interface PublicAccount {
  curve: SecretCurve;
  path: string;
  addressFormat: "ADDRESS_FORMAT_ETHEREUM" | "ADDRESS_FORMAT_SOLANA";
  address: string;
  publicKey: string;
}

export class WalletSecretError extends Error {
  override name = "WalletSecretError";
}

const VERSION = 1;
const CURVE_CODES: Record<SecretCurve, number> = { CURVE_SECP256K1: 1, CURVE_ED25519: 2 };

/**
 * `0x01` ‖ entropy length ‖ entropy ‖ account count ‖ per account: curve (1 = secp256k1, 2 = ed25519) ‖
 * 32-byte key. The caller wipes the result when done.
 */
export function encodeWalletSecret(secret: WalletSecret): Uint8Array {
  const { entropy, accounts } = secret;
  if (entropy.length > 64) throw new WalletSecretError("entropy is at most 64 bytes");
  if (accounts.length === 0 || accounts.length > 16) throw new WalletSecretError("1 to 16 accounts");
  const out = new Uint8Array(3 + entropy.length + accounts.length * 33);
  out[0] = VERSION;
  out[1] = entropy.length;
  out.set(entropy, 2);
  let at = 2 + entropy.length;
  out[at++] = accounts.length;
  for (const a of accounts) {
    if (a.privateKey.length !== 32) throw new WalletSecretError("account keys are 32 bytes");
    out[at++] = CURVE_CODES[a.curve];
    out.set(a.privateKey, at);
    at += 32;
  }
  return out;
}

/** Inverse of {@link encodeWalletSecret}; the parts are copies (wipe them, and `bytes`, when done). */
export function decodeWalletSecret(bytes: Uint8Array): WalletSecret {
  if (bytes[0] !== VERSION) throw new WalletSecretError("unknown wallet secret version");
  const entropyLength = bytes[1] ?? 0;
  let at = 2 + entropyLength;
  const count = bytes[at++];
  if (count === undefined || count === 0 || bytes.length !== at + count * 33) {
    throw new WalletSecretError("wallet secret has the wrong length");
  }
  const entropy = bytes.slice(2, 2 + entropyLength);
  const accounts: SecretAccount[] = [];
  for (let i = 0; i < count; i++) {
    const code = bytes[at++];
    const curve = code === 1 ? "CURVE_SECP256K1" : code === 2 ? "CURVE_ED25519" : null;
    if (!curve) throw new WalletSecretError("unknown curve in wallet secret");
    accounts.push({ curve, privateKey: bytes.slice(at, at + 32) });
    at += 32;
  }
  return { entropy, accounts };
}

/** Wipes every byte of a decoded secret. */
export function wipeWalletSecret(secret: WalletSecret): void {
  secret.entropy.fill(0);
  for (const a of secret.accounts) a.privateKey.fill(0);
}

/**
 * Splits an encoded secret 2-of-2 (Shamir over GF(256), `shamir-secret-sharing`): each share alone says
 * nothing about the secret; both give it back. Shares are one byte longer than the secret.
 */
export async function splitWalletSecret(
  encoded: Uint8Array,
): Promise<{ userShare: Uint8Array; serviceShare: Uint8Array }> {
  const [userShare, serviceShare] = await split(encoded, 2, 2);
  if (!userShare || !serviceShare) throw new WalletSecretError("split made no shares");
  return { userShare, serviceShare };
}

/** The encoded secret of two shares; throws WalletSecretError when they are not a pair of one length. */
export async function combineShares(userShare: Uint8Array, serviceShare: Uint8Array): Promise<Uint8Array> {
  if (userShare.length !== serviceShare.length || userShare.length < 2) {
    throw new WalletSecretError("shares differ in length");
  }
  try {
    return await combine([userShare, serviceShare]);
  } catch (cause) {
    throw new WalletSecretError("shares do not combine", { cause });
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, no passphrase) in WebCrypto: browsers and Node alike. */
export async function seedOfMnemonic(mnemonic: string): Promise<Uint8Array> {
  const subtle = globalThis.crypto.subtle;
  const key = await subtle.importKey("raw", utf8(mnemonic.normalize("NFKD")), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-512", salt: utf8("mnemonic"), iterations: 2048 },
    key,
    512,
  );
  return new Uint8Array(bits);
}

/** SLIP-0010 ed25519 at a path of hardened steps. */
function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  let I = hmac(sha512, utf8("ed25519 seed"), seed);
  for (const part of path.split("/").slice(1)) {
    if (!part.endsWith("'")) throw new WalletSecretError("ed25519 derivation needs hardened indices");
    const data = new Uint8Array(37);
    data.set(I.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, (Number(part.slice(0, -1)) + 0x80000000) >>> 0);
    I = hmac(sha512, I.subarray(32), data);
  }
  return I.slice(0, 32);
}

function checksumAddress(pubUncompressed: Uint8Array): string {
  const lower = toHex(keccak_256(pubUncompressed.subarray(1)).subarray(12));
  const hash = keccak_256(utf8(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    const ch = lower[i] ?? "";
    out += nibble >= 8 ? ch.toUpperCase() : ch;
  }
  return out;
}

/** The public account of a private key, as the service records it. */
export function publicAccountOf(account: SecretAccount, path: string): PublicAccount {
  if (account.curve === "CURVE_SECP256K1") {
    const pub = secp256k1.getPublicKey(account.privateKey, false);
    return {
      curve: "CURVE_SECP256K1",
      path,
      addressFormat: "ADDRESS_FORMAT_ETHEREUM",
      address: checksumAddress(pub),
      publicKey: toHex(pub),
    };
  }
  const pub = ed25519.getPublicKey(account.privateKey);
  return {
    curve: "CURVE_ED25519",
    path,
    addressFormat: "ADDRESS_FORMAT_SOLANA",
    address: base58.encode(pub),
    publicKey: toHex(pub),
  };
}

/** The public key (hex, as stored) of one secret account: what the service compares before it signs. */
export function publicKeyOf(account: SecretAccount): string {
  return account.curve === "CURVE_SECP256K1"
    ? toHex(secp256k1.getPublicKey(account.privateKey, false))
    : toHex(ed25519.getPublicKey(account.privateKey));
}

/**
 * The wallet of `entropy` (16–32 bytes): its mnemonic's EVM account at m/44'/60'/0'/0/0 and Solana
 * account at m/44'/501'/0'/0', as the service derives them.
 */
export async function walletOfEntropy(
  entropy: Uint8Array,
): Promise<{ secret: WalletSecret; accounts: PublicAccount[] }> {
  const mnemonic = entropyToMnemonic(entropy, wordlist);
  const seed = await seedOfMnemonic(mnemonic);
  try {
    const evmKey = HDKey.fromMasterSeed(seed).derive(EVM_PATH).privateKey;
    if (!evmKey) throw new WalletSecretError("no EVM key");
    const solKey = slip10Ed25519(seed, SOLANA_PATH);
    const secret: WalletSecret = {
      entropy: entropy.slice(),
      accounts: [
        { curve: "CURVE_SECP256K1", privateKey: evmKey.slice() },
        { curve: "CURVE_ED25519", privateKey: solKey },
      ],
    };
    evmKey.fill(0);
    const [evm, sol] = secret.accounts as [SecretAccount, SecretAccount];
    return { secret, accounts: [publicAccountOf(evm, EVM_PATH), publicAccountOf(sol, SOLANA_PATH)] };
  } finally {
    seed.fill(0);
  }
}

/** A new wallet (128 bits of entropy from the platform's CSPRNG) and its public accounts. */
export function newWalletSecret(): Promise<{ secret: WalletSecret; accounts: PublicAccount[] }> {
  const entropy = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return walletOfEntropy(entropy).finally(() => entropy.fill(0));
}

/** The recovery phrase of a secret's entropy (the export frame puts it together from both shares). */
export function mnemonicOfSecret(secret: WalletSecret): string | null {
  return secret.entropy.length ? entropyToMnemonic(secret.entropy, wordlist) : null;
}

/**
 * The wallet secret of an imported phrase or key (`ImportSecret`, already checked by parseImportSecret),
 * and its public accounts: a phrase is the wallet of its entropy (EVM and Solana, as a new wallet); a key
 * a wallet of that one account, with no entropy and no path. What the import frame (and a Node key holder)
 * splits in a split app (docs/split-custody.md §5, Import). The caller wipes the secret.
 *
 * @example
 * const { secret, accounts } = await walletOfImport(parseImportSecret("mnemonic", typed, isMnemonic));
 */
export async function walletOfImport(
  imported: ImportSecret,
): Promise<{ secret: WalletSecret; accounts: PublicAccount[] }> {
  if (imported.kind === "mnemonic") {
    const entropy = mnemonicToEntropy(imported.secret, wordlist);
    try {
      return await walletOfEntropy(entropy);
    } finally {
      entropy.fill(0);
    }
  }
  const privateKey = fromHex(imported.secret);
  if (privateKey.length !== 32) throw new WalletSecretError("a private key is 32 bytes");
  const account: SecretAccount = {
    curve: imported.kind === "evm_private_key" ? "CURVE_SECP256K1" : "CURVE_ED25519",
    privateKey,
  };
  return {
    secret: { entropy: new Uint8Array(0), accounts: [account] },
    accounts: [publicAccountOf(account, "")],
  };
}
