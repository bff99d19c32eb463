/** A stamp header that is not well formed (bad base64url, JSON, key, scheme or signature encoding). */
export class StampFormatError extends Error {
  readonly code = "INVALID_STAMP" as const;
  override readonly name = "StampFormatError";
}

/** A credential bundle that cannot be opened: bad checksum, bad length, bad point or failed decryption. */
export class BundleError extends Error {
  readonly code = "INVALID_BUNDLE" as const;
  override readonly name = "BundleError";
}
