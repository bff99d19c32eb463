import { ed25519 } from "@noble/curves/ed25519";
import { LatchkeyProtocolError } from "../errors";
import { base58Decode } from "./base58";
import { fromHex, toHex } from "./hex";

/** What a user can import: a BIP-39 recovery phrase, an EVM private key, or a Solana private key. */
export type ImportSecretKind = "mnemonic" | "evm_private_key" | "solana_private_key";
export const IMPORT_SECRET_KINDS: readonly ImportSecretKind[] = [
  "mnemonic",
  "evm_private_key",
  "solana_private_key",
];

/** Why a pasted secret is refused, by kind: the code the import frame shows a text for. */
export type ImportSecretErrorCode = "INVALID_PHRASE" | "INVALID_EVM_KEY" | "INVALID_SOLANA_KEY";

/** A pasted secret that is not what its kind says: a phrase that fails BIP-39, a key of the wrong shape. */
export class ImportSecretError extends LatchkeyProtocolError {
  declare readonly code: ImportSecretErrorCode;
  constructor(code: ImportSecretErrorCode, message: string) {
    super(code, message);
    this.name = "ImportSecretError";
  }
}

/**
 * A secret in its one canonical form, what the import frame seals (as JSON) and the service reads:
 * `mnemonic` — the 12 or 24 words, lower case, NFKD, single spaces; `evm_private_key` — the 32-byte key as
 * 64 lower-case hex digits; `solana_private_key` — the 32-byte ed25519 seed as 64 hex digits.
 */
export interface ImportSecret {
  kind: ImportSecretKind;
  secret: string;
}

// secp256k1's group order: a private key is in [1, n - 1].
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Reads what the user pasted as `kind`, in its usual forms: a phrase with any spacing and case; an EVM key
 * as 64 hex digits with or without `0x`; a Solana key as base58 of the 64-byte secret key (Phantom's
 * export, whose second half must be the first half's public key) or of the 32-byte seed, the JSON array
 * of 64 numbers `solana-keygen` writes, or hex of either. `isMnemonic` checks BIP-39 (the words and the checksum, English
 * list), e.g. @scure/bip39's `validateMnemonic(m, wordlist)`. Throws ImportSecretError.
 *
 * @example
 * const { secret } = parseImportSecret("mnemonic", pasted, (m) => validateMnemonic(m, wordlist));
 */
export function parseImportSecret(
  kind: ImportSecretKind,
  input: string,
  isMnemonic: (mnemonic: string) => boolean,
): ImportSecret {
  if (typeof input !== "string" || input.length > 4096) throw invalid(kind);
  const text = input.trim();
  if (kind === "mnemonic") {
    const words = text.normalize("NFKD").toLowerCase().split(/\s+/);
    const mnemonic = words.join(" ");
    if ((words.length !== 12 && words.length !== 24) || !isMnemonic(mnemonic)) throw invalid(kind);
    return { kind, secret: mnemonic };
  }
  if (kind === "evm_private_key") {
    const hex = text.replace(/^0x/i, "").toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw invalid(kind);
    const scalar = BigInt(`0x${hex}`);
    if (scalar === 0n || scalar >= SECP256K1_N) throw invalid(kind);
    return { kind, secret: hex };
  }
  if (kind === "solana_private_key") return { kind, secret: toHex(solanaSeed(text)) };
  throw invalid(kind);
}

function solanaSeed(text: string): Uint8Array {
  let bytes: Uint8Array | undefined;
  if (/^([0-9a-fA-F]{64}){1,2}$/.test(text)) bytes = fromHex(text);
  else if (text.startsWith("[")) {
    try {
      const numbers: unknown = JSON.parse(text);
      if (
        Array.isArray(numbers) &&
        numbers.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 255)
      )
        bytes = Uint8Array.from(numbers as number[]);
    } catch {}
  } else if (text.length <= 100) bytes = base58Decode(text);
  if (bytes?.length === 32) return bytes;
  if (bytes?.length !== 64) throw invalid("solana_private_key");
  const seed = bytes.slice(0, 32);
  const publicKey = ed25519.getPublicKey(seed);
  // A 64-byte secret key is seed ‖ public key: a pasted one whose halves disagree is not a key.
  if (toHex(publicKey) !== toHex(bytes.subarray(32))) throw invalid("solana_private_key");
  return seed;
}

function invalid(kind: ImportSecretKind): ImportSecretError {
  if (kind === "evm_private_key")
    return new ImportSecretError("INVALID_EVM_KEY", "not an EVM private key (64 hex digits)");
  if (kind === "solana_private_key")
    return new ImportSecretError(
      "INVALID_SOLANA_KEY",
      "not a Solana private key (base58 of 64 or 32 bytes, or a key file's 64 numbers)",
    );
  return new ImportSecretError("INVALID_PHRASE", "not a 12- or 24-word BIP-39 recovery phrase");
}

/** The secret as the import frame seals it: JSON `{kind, secret}`, UTF-8. */
export function encodeImportSecret(secret: ImportSecret): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ kind: secret.kind, secret: secret.secret }));
}

/**
 * Reads a sealed secret back (the service, after decryption) and checks it again with `parseImportSecret`:
 * a frame is trusted for nothing. Throws ImportSecretError.
 */
export function decodeImportSecret(
  plaintext: Uint8Array,
  isMnemonic: (mnemonic: string) => boolean,
): ImportSecret {
  let parsed: { kind?: unknown; secret?: unknown };
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plaintext)) as typeof parsed;
  } catch {
    throw new ImportSecretError("INVALID_PHRASE", "the sealed secret is not JSON");
  }
  const kind = parsed?.kind as ImportSecretKind;
  if (!IMPORT_SECRET_KINDS.includes(kind) || typeof parsed.secret !== "string")
    throw new ImportSecretError("INVALID_PHRASE", "the sealed secret has no known kind");
  return parseImportSecret(kind, parsed.secret, isMnemonic);
}
