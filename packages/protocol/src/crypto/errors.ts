import { LatchkeyProtocolError } from "../errors";

/** A stamp header that is not well formed (bad base64url, JSON, key, scheme or signature encoding). */
export class StampFormatError extends LatchkeyProtocolError {
  declare readonly code: "INVALID_STAMP" | "STAMP_NOT_CANONICAL";
  constructor(
    message: string,
    options?: { cause?: unknown; code?: "INVALID_STAMP" | "STAMP_NOT_CANONICAL" },
  ) {
    super(options?.code ?? "INVALID_STAMP", message, options);
    this.name = "StampFormatError";
  }
}

/** A credential bundle that cannot be opened: bad checksum, bad length, bad point or failed decryption. */
export class BundleError extends LatchkeyProtocolError {
  declare readonly code: "INVALID_BUNDLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_BUNDLE", message, options);
    this.name = "BundleError";
  }
}
