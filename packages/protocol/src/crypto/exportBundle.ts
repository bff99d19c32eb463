import { hpkeOpenBase, hpkeSealBase } from "./bundle";
import { BundleError } from "./errors";
import { fromHex, toHex } from "./hex";
import { uncompressP256PublicKey } from "./p256";
import { signBundle, verifySignedBundle } from "./signedBundle";

/**
 * The plaintext prefix of a split wallet's export bundle (docs/split-custody.md §5). For a split-custody
 * wallet the bundle's plaintext is not the mnemonic but the UTF-8 string `split:v1:` + base64url (no
 * padding) of the service's share; the export frame combines it with the user share it reads from its
 * own storage (`combineShares` of `@latchkey/protocol/custody`) and shows the phrase. The service never
 * combines for an export. A plaintext without this prefix is the mnemonic, as before.
 */
export const SPLIT_EXPORT_PREFIX = "split:v1:";

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
 * Seals `plaintext` (the mnemonic's UTF-8 bytes, or for a split wallet `split:v1:<base64url(serviceShare)>`,
 * see {@link SPLIT_EXPORT_PREFIX}) to `targetPublicKey` and signs the sealed data with the
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
  return signBundle({
    version: EXPORT_BUNDLE_VERSION,
    data,
    signerPublicKey: args.signerPublicKey,
    sign: args.sign,
  });
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
  const data = verifySignedBundle<ExportBundleData>({
    kind: "export",
    bundle: args.exportBundle,
    version: EXPORT_BUNDLE_VERSION,
    maxChars: MAX_EXPORT_BUNDLE_CHARS,
    signerPublicKey: args.signerPublicKey,
  });
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
