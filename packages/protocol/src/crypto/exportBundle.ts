import { p256 } from "@noble/curves/nist";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToUtf8, utf8ToBytes } from "@noble/hashes/utils";
import { hpkeOpenBase, hpkeSealBase } from "./bundle";
import { BundleError } from "./errors";
import { fromHex, toHex } from "./hex";
import { uncompressP256PublicKey } from "./p256";

/** The one export bundle version (DESIGN §3.4). */
export const EXPORT_BUNDLE_VERSION = "v1.0.0";
// A 24-word mnemonic sealed is well under 1 KB of JSON; bound what a frame parses.
const MAX_EXPORT_BUNDLE_CHARS = 16 * 1024;

/**
 * An export bundle (DESIGN §3.4): `data` is hex of the JSON `{encappedPublic, ciphertext, organizationId}`
 * (HPKE to the export frame's target key, as for credential bundles), `dataSignature` DER hex of
 * ECDSA-P256-SHA256 over those bytes by the service's export-signing key, `enclaveQuorumPublic` that
 * key, uncompressed hex.
 */
export interface ExportBundle {
  version: typeof EXPORT_BUNDLE_VERSION;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/** The signed part of an export bundle. */
interface ExportBundleData {
  encappedPublic: string;
  ciphertext: string;
  organizationId: string;
}

/**
 * Seals `plaintext` (the mnemonic's UTF-8 bytes) to `targetPublicKey` and signs the sealed data with the
 * service's export-signing key (`sign` answers DER). Answers the bundle as a JSON string.
 *
 * @example
 * const exportBundle = await sealExportBundle({
 *   plaintext: utf8ToBytes(mnemonic), targetPublicKey, organizationId,
 *   signerPublicKey, sign: (data) => serviceKeys.signP256Der("exportSigner", data),
 * });
 */
export async function sealExportBundle(args: {
  plaintext: Uint8Array;
  targetPublicKey: string;
  organizationId: string;
  signerPublicKey: Uint8Array;
  sign: (data: Uint8Array) => Promise<Uint8Array>;
}): Promise<string> {
  const { enc, ciphertext } = await hpkeSealBase({
    plaintext: args.plaintext,
    recipientPublicKey: fromHex(args.targetPublicKey),
  });
  const data: ExportBundleData = {
    encappedPublic: toHex(enc),
    ciphertext: toHex(ciphertext),
    organizationId: args.organizationId,
  };
  const dataBytes = utf8ToBytes(JSON.stringify(data));
  const bundle: ExportBundle = {
    version: EXPORT_BUNDLE_VERSION,
    data: toHex(dataBytes),
    dataSignature: toHex(await args.sign(dataBytes)),
    enclaveQuorumPublic: toHex(uncompressP256PublicKey(args.signerPublicKey)),
  };
  return JSON.stringify(bundle);
}

/**
 * Checks an export bundle and opens it with the target key, in this order: the JSON and version; the
 * signing key is the pinned `signerPublicKey` (hex, either form); the signature over `data`; `data`'s
 * `organizationId` is the expected one; then HPKE. Throws BundleError on any failure, never answering a
 * plaintext that the pinned key did not sign.
 *
 * @example
 * const mnemonic = bytesToUtf8(await openExportBundle({
 *   exportBundle, targetPrivateKey, targetPublicKey, organizationId, signerPublicKey: pinnedKeyHex,
 * }));
 */
export async function openExportBundle(args: {
  exportBundle: string;
  targetPrivateKey: Uint8Array | CryptoKey;
  targetPublicKey: string;
  organizationId: string;
  signerPublicKey: string;
}): Promise<Uint8Array> {
  if (typeof args.exportBundle !== "string" || args.exportBundle.length > MAX_EXPORT_BUNDLE_CHARS)
    throw new BundleError("export bundle has an invalid length");
  let bundle: Partial<ExportBundle>;
  try {
    bundle = JSON.parse(args.exportBundle) as Partial<ExportBundle>;
  } catch (cause) {
    throw new BundleError("export bundle is not JSON", { cause });
  }
  if (bundle?.version !== EXPORT_BUNDLE_VERSION) throw new BundleError("export bundle has another version");
  if (
    typeof bundle.data !== "string" ||
    typeof bundle.dataSignature !== "string" ||
    typeof bundle.enclaveQuorumPublic !== "string"
  )
    throw new BundleError("export bundle is missing a field");
  let pinned: string;
  let dataBytes: Uint8Array;
  let signature: Uint8Array;
  try {
    pinned = toHex(uncompressP256PublicKey(fromHex(args.signerPublicKey)));
    dataBytes = fromHex(bundle.data);
    signature = fromHex(bundle.dataSignature);
  } catch (cause) {
    throw new BundleError("export bundle is not hex", { cause });
  }
  if (bundle.enclaveQuorumPublic.toLowerCase() !== pinned)
    throw new BundleError("export bundle is signed by another key");
  let valid = false;
  try {
    valid = p256.verify(signature, sha256(dataBytes), fromHex(pinned), {
      prehash: false,
      lowS: false,
      format: "der",
    });
  } catch {}
  if (!valid) throw new BundleError("export bundle signature is not valid");
  let data: Partial<ExportBundleData>;
  try {
    data = JSON.parse(bytesToUtf8(dataBytes)) as Partial<ExportBundleData>;
  } catch (cause) {
    throw new BundleError("export bundle data is not JSON", { cause });
  }
  if (data.organizationId !== args.organizationId)
    throw new BundleError("export bundle is for another organization");
  if (typeof data.encappedPublic !== "string" || typeof data.ciphertext !== "string")
    throw new BundleError("export bundle data is missing a field");
  let enc: Uint8Array;
  let ciphertext: Uint8Array;
  try {
    enc = uncompressP256PublicKey(fromHex(data.encappedPublic));
    ciphertext = fromHex(data.ciphertext);
  } catch (cause) {
    throw new BundleError("export bundle data is malformed", { cause });
  }
  return hpkeOpenBase({
    enc,
    ciphertext,
    recipientPrivateKey: args.targetPrivateKey,
    recipientPublicKey: fromHex(args.targetPublicKey),
  });
}
