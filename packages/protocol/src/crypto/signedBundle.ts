import { p256 } from "@noble/curves/nist";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToUtf8, utf8ToBytes } from "@noble/hashes/utils";
import { BundleError } from "./errors";
import { fromHex, toHex } from "./hex";
import { uncompressP256PublicKey } from "./p256";

/**
 * The signed envelope the export and import bundles share: `data` is hex of a JSON object,
 * `dataSignature` DER hex of ECDSA-P256-SHA256 over those bytes, `enclaveQuorumPublic` the signing key,
 * uncompressed hex. Internal to the crypto folder (not exported from the package).
 */
interface SignedBundle {
  version: string;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/** Signs `data`'s JSON with `sign` (answers DER) and answers the bundle as a JSON string. */
export async function signBundle(args: {
  version: string;
  data: object;
  signerPublicKey: Uint8Array;
  sign: (data: Uint8Array) => Promise<Uint8Array>;
}): Promise<string> {
  const dataBytes = utf8ToBytes(JSON.stringify(args.data));
  const bundle: SignedBundle = {
    version: args.version,
    data: toHex(dataBytes),
    dataSignature: toHex(await args.sign(dataBytes)),
    enclaveQuorumPublic: toHex(uncompressP256PublicKey(args.signerPublicKey)),
  };
  return JSON.stringify(bundle);
}

/**
 * Checks a signed bundle, in this order: its length, the JSON and version; the signing key is the pinned
 * `signerPublicKey` (hex, either form); the signature over `data`; `data` is JSON. Answers the parsed
 * `data` (its fields still unchecked); throws BundleError ("<kind> bundle …") on any failure.
 */
export function verifySignedBundle<T>(args: {
  /** Names the bundle in the error messages: 'export' or 'import'. */
  kind: string;
  bundle: string;
  version: string;
  maxChars: number;
  signerPublicKey: string;
}): Partial<T> {
  const { kind } = args;
  if (typeof args.bundle !== "string" || args.bundle.length > args.maxChars)
    throw new BundleError(`${kind} bundle has an invalid length`);
  let bundle: Partial<SignedBundle>;
  try {
    bundle = JSON.parse(args.bundle) as Partial<SignedBundle>;
  } catch (cause) {
    throw new BundleError(`${kind} bundle is not JSON`, { cause });
  }
  if (bundle?.version !== args.version) throw new BundleError(`${kind} bundle has another version`);
  if (
    typeof bundle.data !== "string" ||
    typeof bundle.dataSignature !== "string" ||
    typeof bundle.enclaveQuorumPublic !== "string"
  )
    throw new BundleError(`${kind} bundle is missing a field`);
  let pinned: string;
  let dataBytes: Uint8Array;
  let signature: Uint8Array;
  try {
    pinned = toHex(uncompressP256PublicKey(fromHex(args.signerPublicKey)));
    dataBytes = fromHex(bundle.data);
    signature = fromHex(bundle.dataSignature);
  } catch (cause) {
    throw new BundleError(`${kind} bundle is not hex`, { cause });
  }
  if (bundle.enclaveQuorumPublic.toLowerCase() !== pinned)
    throw new BundleError(`${kind} bundle is signed by another key`);
  let valid = false;
  try {
    valid = p256.verify(signature, sha256(dataBytes), fromHex(pinned), {
      prehash: false,
      lowS: false,
      format: "der",
    });
  } catch {}
  if (!valid) throw new BundleError(`${kind} bundle signature is not valid`);
  try {
    return JSON.parse(bytesToUtf8(dataBytes)) as Partial<T>;
  } catch (cause) {
    throw new BundleError(`${kind} bundle data is not JSON`, { cause });
  }
}
