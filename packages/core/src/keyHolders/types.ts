import type { StampHeader } from "@latchkey/protocol";

/** Where a key holder keeps its target key; `storageError` is what the browser answered when refused. */
export interface KeyHolderStorage {
  storage: "persistent" | "memory";
  storageError?: string;
}

/**
 * Where the keys of a session live. The target key receives credential bundles; the session key they
 * carry stamps requests. Implementations: iframe (browser default), in-page WebCrypto, memory.
 */
export interface KeyHolder {
  readonly kind: "iframe" | "webcrypto" | "memory";
  /** Makes the target key if there is none (else keeps it) and returns its public key, uncompressed hex. */
  initTargetKey(): Promise<string>;
  /** The target public key, or null when none was made yet. */
  getTargetPublicKey(): Promise<string | null>;
  /** Opens a credential bundle with the target key and holds the session key; returns its public key. */
  injectCredentialBundle(bundle: string): Promise<string>;
  /** Stamps `body` with the session key (X-Stamp, DESIGN §3.2). */
  stamp(body: string): Promise<StampHeader>;
  /**
   * Forgets the session key; with `targetKey` (the default) also deletes the target key, so the next
   * sign-in makes a fresh one.
   */
  clear(options?: { targetKey?: boolean }): Promise<void>;
  /**
   * Resolves when the holder can take requests, saying where its keys live (`memory` when the browser
   * refused storage: the session then lasts as long as the page); rejects with a `LatchkeyError` when it
   * cannot (the auth frame did not load or answer). Holders that are always ready may omit it.
   */
  ready?(): Promise<KeyHolderStorage>;
  /** Releases resources (iframe, listeners). */
  destroy?(): void;
}
