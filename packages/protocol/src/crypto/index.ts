export {
  base58checkDecode,
  base58checkEncode,
  generateTargetKeyPair,
  HPKE_INFO,
  hpkeOpenBase,
  hpkeSealBase,
  openCredentialBundle,
  sealCredentialBundle,
} from "./bundle";
export { BundleError, StampFormatError } from "./errors";
export {
  EXPORT_BUNDLE_VERSION,
  type ExportBundle,
  openExportBundle,
  SPLIT_EXPORT_PREFIX,
  sealExportBundle,
} from "./exportBundle";
export { fromHex, toHex } from "./hex";
export {
  decodeSplitImport,
  type EncryptedImportBundle,
  encodeSplitImport,
  encryptToImportKey,
  IMPORT_BUNDLE_VERSION,
  IMPORT_KEY_TTL_MS,
  type ImportBundle,
  type ImportBundleData,
  openEncryptedImportBundle,
  readEncryptedImportBundle,
  sealImportBundle,
  verifyImportBundle,
} from "./importBundle";
export {
  decodeImportSecret,
  encodeImportSecret,
  IMPORT_SECRET_KINDS,
  type ImportSecret,
  ImportSecretError,
  type ImportSecretErrorCode,
  type ImportSecretKind,
  parseImportSecret,
} from "./importSecret";
export {
  compressP256PublicKey,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  p256PublicKeysOnce,
  uncompressP256PublicKey,
} from "./p256";
export { passkeyStampChallenge, passkeyStampChallengeBytes } from "./passkeyChallenge";
export {
  type ApiKeyStamp,
  compactToCanonicalDerP256,
  compactToDerP256,
  decodeStamp,
  derToCompactP256,
  encodeStamp,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  type StampHeader,
  signP256Der,
  stampWithPrivateKey,
  verifyApiKeyStamp,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "./stamp";
