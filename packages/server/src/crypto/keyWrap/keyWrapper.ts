/**
 * What wraps the data keys: the root of every secret at rest. The keyring seals secrets with data keys
 * (AES-256-GCM) and stores each data key only as `wrap`'s output; a wrapper holds or reaches the master key
 * (a key encryption key) and never hands it out. Backends: a 32-byte key in the process (env or a 0600 file,
 * localKey.ts) and a non-extractable AES key in an HSM over PKCS#11 (pkcs11.ts). A cloud KMS would be one
 * more small file implementing this interface (Encrypt/Decrypt with the context as encryption context).
 *
 * The keyring unwraps a data key once per process and keeps it, so a wrapper is called at start and when a
 * sealed value names a data key not yet opened: never per signature.
 */
export interface KeyWrapper {
  /**
   * Names the master key, stored beside each wrapped data key (`data_keys.kek_id`): two wrappers with the
   * same id open each other's output. Letters, digits, `-` and `:` only.
   */
  readonly id: string;
  /** For messages: what and where the key is (never any key material or PIN). */
  readonly description: string;
  /** Encrypts a data key; `context` is authenticated (AES-GCM associated data) and must be given to unwrap. */
  wrap(dataKey: Buffer, context: string): Promise<Buffer>;
  /** Decrypts a `wrap` output; throws when it was not made by this key with this context. */
  unwrap(wrapped: Buffer, context: string): Promise<Buffer>;
  /** Releases what it holds (an HSM session); the wrapper is not used after. */
  close(): Promise<void>;
}

/** A wrapper's refusal to start: the message says what is wrong and what to do, never a secret. */
export class KeyWrapperError extends Error {
  override name = "KeyWrapperError";
}
