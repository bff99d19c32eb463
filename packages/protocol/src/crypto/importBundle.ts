import { decodeBase64url, encodeBase64url } from "./base64url";
import { hpkeOpenBase, hpkeSealBase } from "./bundle";
import { BundleError } from "./errors";
import { SPLIT_EXPORT_PREFIX } from "./exportBundle";
import { fromHex, toHex } from "./hex";
import { uncompressP256PublicKey } from "./p256";
import { signBundle, verifySignedBundle } from "./signedBundle";

/** The one import bundle version: the shape of Turnkey's `init_import_wallet` answer. */
export const IMPORT_BUNDLE_VERSION = "v1.0.0";
/** How long an import key lives: the user types the secret, and may be asked to confirm it's them. */
export const IMPORT_KEY_TTL_MS = 10 * 60_000;
// A signed key and two ids are well under 1 KB of JSON; bound what a frame and the service parse.
const MAX_BUNDLE_CHARS = 16 * 1024;

/**
 * An import bundle: the service's fresh P-256 key for one wallet import, signed by its import-signing key
 * (which the import frame pins). `data` is hex of the JSON {@link ImportBundleData}, `dataSignature` DER hex
 * of ECDSA-P256-SHA256 over those bytes, `enclaveQuorumPublic` the signing key, uncompressed hex.
 */
export interface ImportBundle {
  version: typeof IMPORT_BUNDLE_VERSION;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/** The signed part of an import bundle: whose import it is, the key to encrypt to, and until when. */
export interface ImportBundleData {
  /** The import key, uncompressed P-256 hex: the frame encrypts the secret to it. */
  targetPublic: string;
  organizationId: string;
  userId: string;
  /** Milliseconds since the epoch after which the service refuses the key. */
  expiresAtMs: number;
  /**
   * Split custody (docs/split-custody.md §5, Import): the frame splits the secret and seals only the
   * service's share to the key, keeping the user's share under `walletId`, the id the wallet will have.
   */
  custody?: "split";
  walletId?: string;
}

/**
 * What the import frame hands back for `import_wallet`: the secret sealed by HPKE (base mode, the bundle
 * suite of DESIGN §3.4) to `targetPublic`, which also names the import key it was sealed to. Hex fields.
 */
export interface EncryptedImportBundle {
  encappedPublic: string;
  ciphertext: string;
  targetPublic: string;
}

/**
 * Signs a fresh import key for `organizationId`'s user `userId` with the service's import-signing key
 * (`sign` answers DER). Answers the bundle as a JSON string.
 *
 * @example
 * const importBundle = await sealImportBundle({
 *   targetPublicKey, organizationId, userId, expiresAtMs,
 *   signerPublicKey, sign: (data) => serviceKeys.signP256Der("importSigner", data),
 * });
 */
export async function sealImportBundle(args: {
  targetPublicKey: Uint8Array;
  organizationId: string;
  userId: string;
  expiresAtMs: number;
  /** A split user's import: the wallet id the service will give it. */
  split?: { walletId: string };
  signerPublicKey: Uint8Array;
  sign: (data: Uint8Array) => Promise<Uint8Array>;
}): Promise<string> {
  const data: ImportBundleData = {
    targetPublic: toHex(uncompressP256PublicKey(args.targetPublicKey)),
    organizationId: args.organizationId,
    userId: args.userId,
    expiresAtMs: args.expiresAtMs,
    ...(args.split ? { custody: "split" as const, walletId: args.split.walletId } : {}),
  };
  return signBundle({
    version: IMPORT_BUNDLE_VERSION,
    data,
    signerPublicKey: args.signerPublicKey,
    sign: args.sign,
  });
}

/**
 * Checks an import bundle, in this order: the JSON and version; the signing key is the pinned
 * `signerPublicKey` (hex, either form); the signature over `data`; `data` names the expected organisation
 * and user; the key has not expired at `nowMs`; the key is a P-256 point. Answers the key to encrypt to;
 * throws BundleError on any failure, so a secret is never sealed to a key the pinned key did not sign.
 *
 * @example
 * const { targetPublicKey } = verifyImportBundle({ importBundle, organizationId, userId,
 *   signerPublicKey: pinnedKeyHex, nowMs: Date.now() });
 */
export function verifyImportBundle(args: {
  importBundle: string;
  organizationId: string;
  userId: string;
  signerPublicKey: string;
  nowMs: number;
}): { targetPublicKey: string; expiresAtMs: number; split?: { walletId: string } } {
  const data = verifySignedBundle<ImportBundleData>({
    kind: "import",
    bundle: args.importBundle,
    version: IMPORT_BUNDLE_VERSION,
    maxChars: MAX_BUNDLE_CHARS,
    signerPublicKey: args.signerPublicKey,
  });
  if (data.organizationId !== args.organizationId || data.userId !== args.userId)
    throw new BundleError("import bundle is for another user");
  if (typeof data.expiresAtMs !== "number" || !(args.nowMs < data.expiresAtMs))
    throw new BundleError("import bundle has expired");
  if (typeof data.targetPublic !== "string") throw new BundleError("import bundle data is missing a field");
  let targetPublicKey: string;
  try {
    targetPublicKey = toHex(uncompressP256PublicKey(fromHex(data.targetPublic)));
  } catch (cause) {
    throw new BundleError("import bundle key is not a P-256 point", { cause });
  }
  if (data.custody !== undefined && (data.custody !== "split" || typeof data.walletId !== "string"))
    throw new BundleError("import bundle data has an unknown custody");
  return {
    targetPublicKey,
    expiresAtMs: data.expiresAtMs,
    ...(data.custody === "split" && data.walletId ? { split: { walletId: data.walletId } } : {}),
  };
}

/**
 * A split import's plaintext (docs/split-custody.md §5, Import): the service's share only, as the export
 * bundle of a split wallet carries it (`split:v1:` + base64url, no padding).
 */
export function encodeSplitImport(serviceShare: Uint8Array): Uint8Array {
  return new TextEncoder().encode(SPLIT_EXPORT_PREFIX + encodeBase64url(serviceShare));
}

/** Inverse of {@link encodeSplitImport}; null when `plaintext` is not a split import (a whole secret). */
export function decodeSplitImport(plaintext: Uint8Array): Uint8Array | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(plaintext);
  } catch {
    return null;
  }
  if (!text.startsWith(SPLIT_EXPORT_PREFIX)) return null;
  try {
    return decodeBase64url(text.slice(SPLIT_EXPORT_PREFIX.length));
  } catch {
    return null;
  }
}

/**
 * Seals `plaintext` (an import secret's JSON, see importSecret.ts) to the import key. Answers the
 * encrypted bundle as a JSON string, what `import_wallet` takes.
 *
 * @example
 * const encryptedBundle = await encryptToImportKey({ plaintext, targetPublicKey });
 */
export async function encryptToImportKey(args: {
  plaintext: Uint8Array;
  targetPublicKey: string;
}): Promise<string> {
  const recipient = uncompressP256PublicKey(fromHex(args.targetPublicKey));
  const { enc, ciphertext } = await hpkeSealBase({
    plaintext: args.plaintext,
    recipientPublicKey: recipient,
  });
  const bundle: EncryptedImportBundle = {
    encappedPublic: toHex(enc),
    ciphertext: toHex(ciphertext),
    targetPublic: toHex(recipient),
  };
  return JSON.stringify(bundle);
}

/**
 * Reads an encrypted import bundle's fields (no decryption): the import key it names (uncompressed hex),
 * the encapsulated key and the ciphertext. Throws BundleError on anything malformed.
 */
export function readEncryptedImportBundle(text: string): {
  targetPublicKey: string;
  enc: Uint8Array;
  ciphertext: Uint8Array;
} {
  if (typeof text !== "string" || text.length > MAX_BUNDLE_CHARS)
    throw new BundleError("encrypted bundle has an invalid length");
  let bundle: Partial<EncryptedImportBundle>;
  try {
    bundle = JSON.parse(text) as Partial<EncryptedImportBundle>;
  } catch (cause) {
    throw new BundleError("encrypted bundle is not JSON", { cause });
  }
  if (
    typeof bundle?.encappedPublic !== "string" ||
    typeof bundle.ciphertext !== "string" ||
    typeof bundle.targetPublic !== "string"
  )
    throw new BundleError("encrypted bundle is missing a field");
  try {
    return {
      targetPublicKey: toHex(uncompressP256PublicKey(fromHex(bundle.targetPublic))),
      enc: uncompressP256PublicKey(fromHex(bundle.encappedPublic)),
      ciphertext: fromHex(bundle.ciphertext),
    };
  } catch (cause) {
    throw new BundleError("encrypted bundle is malformed", { cause });
  }
}

/**
 * Opens an encrypted import bundle with the import key's private half. Throws BundleError when it does not
 * open (another key, a changed byte).
 *
 * @example
 * const plaintext = await openEncryptedImportBundle({ encryptedBundle, importPrivateKey });
 */
export async function openEncryptedImportBundle(args: {
  encryptedBundle: string;
  importPrivateKey: Uint8Array;
}): Promise<Uint8Array> {
  const { targetPublicKey, enc, ciphertext } = readEncryptedImportBundle(args.encryptedBundle);
  return hpkeOpenBase({
    enc,
    ciphertext,
    recipientPrivateKey: args.importPrivateKey,
    recipientPublicKey: fromHex(targetPublicKey),
  });
}
