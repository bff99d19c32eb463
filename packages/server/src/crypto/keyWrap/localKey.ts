import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { KeyWrapper } from "./keyWrapper";

/** The id a 32-byte master key is stored under: a hash of the key, not the key. */
export function localKeyId(masterKey: Buffer): string {
  return createHash("sha256").update("latchkey-kek-id").update(masterKey).digest("hex").slice(0, 16);
}

/**
 * The master key held in the process (from LATCHKEY_MASTER_KEY or a 0600 key file): AES-256-GCM, output
 * iv (12) ‖ ciphertext ‖ tag (16).
 */
export class LocalKeyWrapper implements KeyWrapper {
  readonly id: string;
  readonly description: string;
  readonly #key: Buffer;

  /** `description` says where the key came from, for messages (e.g. "the key file /srv/master.key"). */
  constructor(masterKey: Buffer, description = "the master key from LATCHKEY_MASTER_KEY or its key file") {
    this.description = description;
    if (masterKey.length !== 32) throw new Error("The master key must be 32 bytes");
    this.#key = Buffer.from(masterKey);
    this.id = localKeyId(masterKey);
  }

  async wrap(dataKey: Buffer, context: string): Promise<Buffer> {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context));
    return Buffer.concat([iv, cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
  }

  async unwrap(wrapped: Buffer, context: string): Promise<Buffer> {
    const decipher = createDecipheriv("aes-256-gcm", this.#key, wrapped.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(wrapped.subarray(wrapped.length - 16));
    return Buffer.concat([decipher.update(wrapped.subarray(12, wrapped.length - 16)), decipher.final()]);
  }

  async close(): Promise<void> {
    this.#key.fill(0);
  }
}
