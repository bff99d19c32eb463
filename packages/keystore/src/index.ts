import {
  compactToCanonicalDerP256,
  encodeStamp,
  generateTargetKeyPair,
  openCredentialBundle,
  p256PublicKeysOnce,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  type StampHeader,
  toHex,
} from "@latchkey/protocol";

/**
 * The browser key store behind both the auth frame (@latchkey/frames) and core's in-page WebCrypto key
 * holder: one implementation, so the two cannot drift. The target key is a non-extractable ECDH key kept
 * in IndexedDB (it survives reloads, so a stored bundle can be opened again); the session key is a
 * non-extractable ECDSA key kept in memory only. Scripts can stamp with it but never export either key.
 */

const STORE = "keys";
const TARGET = "target";

interface StoredTarget {
  privateKey: CryptoKey;
  publicKeyHex: string;
}

export type KeyStoreErrorCode = "NOT_AUTHENTICATED" | "CREATE_API_KEY_FAILED" | "INJECT_BUNDLE_FAILED";

/** A failure of the key store, with a code the caller maps to its own catalogue. */
export class KeyStoreError extends Error {
  readonly code: KeyStoreErrorCode;
  constructor(code: KeyStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "KeyStoreError";
  }
}

/**
 * Where the target key lives: `persistent` (IndexedDB; a session survives a reload) or `memory` (storage
 * was refused — e.g. a third-party frame whose storage the browser blocks — so sign-in works for the
 * life of the page only). `storageError` says what the browser answered.
 */
export interface KeyStorage {
  kind: "persistent" | "memory";
  storageError?: string;
}

export interface BrowserKeyStore {
  /** Tries IndexedDB once and settles where keys live; later calls answer the same. */
  storage(): Promise<KeyStorage>;
  /** The target public key (uncompressed hex), made and stored on first use. */
  initTargetKey(): Promise<string>;
  getTargetPublicKey(): Promise<string | null>;
  /** Opens a credential bundle with the target key and keeps the session key; answers its public key. */
  injectCredentialBundle(bundle: string): Promise<string>;
  /** An `X-Stamp` over the exact body, canonical (low-s) as the service requires. */
  stamp(body: string): Promise<StampHeader>;
  /** Forgets the session key, and the target key too when `targetKey`. */
  clear(targetKey: boolean): Promise<void>;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function withStore<T>(
  name: string,
  mode: IDBTransactionMode,
  fn: (store: IDBObjectStore) => IDBRequest<T>,
) {
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  const db = await request(open);
  try {
    return await request(fn(db.transaction(STORE, mode).objectStore(STORE)));
  } finally {
    db.close();
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A raw P-256 private key as a non-extractable WebCrypto signing key. */
async function importSessionKey(privateKey: Uint8Array): Promise<{ key: CryptoKey; publicKeyHex: string }> {
  // One multiplication without noble's base-point table: a fresh frame would spend 100–400 ms building
  // the table for this one key, between the code's answer and `connected` (bench/otp-connected.ts).
  const { uncompressed: pub, compressed } = p256PublicKeysOnce(privateKey);
  const key = await crypto.subtle.importKey(
    "jwk",
    {
      kty: "EC",
      crv: "P-256",
      d: base64url(privateKey),
      x: base64url(pub.subarray(1, 33)),
      y: base64url(pub.subarray(33, 65)),
      ext: false,
    },
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  return { key, publicKeyHex: toHex(compressed) };
}

/**
 * A key store in IndexedDB database `dbName` (one per use: the frame and an in-page holder keep apart).
 *
 * @example
 * const keys = createBrowserKeyStore("latchkey-keys");
 * const targetPublicKey = await keys.initTargetKey();
 */
export function createBrowserKeyStore(dbName: string): BrowserKeyStore {
  let session: { key: CryptoKey; publicKeyHex: string } | undefined;
  // When IndexedDB is refused the target key stays in this variable: non-extractable all the same.
  let memoryTarget: StoredTarget | undefined;
  let settled: Promise<KeyStorage> | undefined;
  const storage = () =>
    (settled ??= withStore<StoredTarget | undefined>(dbName, "readonly", (s) => s.get(TARGET)).then(
      (): KeyStorage => ({ kind: "persistent" }),
      (error: unknown): KeyStorage => ({
        kind: "memory",
        storageError: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      }),
    ));
  const persistent = async () => (await storage()).kind === "persistent";
  const loadTarget = async () =>
    (await persistent())
      ? withStore<StoredTarget | undefined>(dbName, "readonly", (s) => s.get(TARGET))
      : memoryTarget;

  return {
    storage,
    async initTargetKey() {
      try {
        const existing = await loadTarget();
        if (existing) return existing.publicKeyHex;
        const { privateKey, publicKeyHex } = await generateTargetKeyPair(false);
        if (await persistent()) {
          await withStore(dbName, "readwrite", (s) =>
            s.put({ privateKey, publicKeyHex } satisfies StoredTarget, TARGET),
          );
        } else memoryTarget = { privateKey, publicKeyHex };
        return publicKeyHex;
      } catch (cause) {
        throw new KeyStoreError("CREATE_API_KEY_FAILED", "Failed to create api key", { cause });
      }
    },
    async getTargetPublicKey() {
      return (await loadTarget())?.publicKeyHex ?? null;
    },
    async injectCredentialBundle(bundle) {
      try {
        const target = await loadTarget();
        if (!target) throw new Error("no target key");
        const raw = await openCredentialBundle({
          bundle,
          targetPrivateKey: target.privateKey,
          targetPublicKey: target.publicKeyHex,
        });
        try {
          session = await importSessionKey(raw);
        } finally {
          raw.fill(0);
        }
        return session.publicKeyHex;
      } catch (cause) {
        throw new KeyStoreError("INJECT_BUNDLE_FAILED", "Failed to inject credential bundle", { cause });
      }
    },
    async stamp(body) {
      if (!session) throw new KeyStoreError("NOT_AUTHENTICATED", "Signer not authenticated");
      const compact = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          session.key,
          new TextEncoder().encode(body),
        ),
      );
      return {
        stampHeaderName: STAMP_HEADER_NAME,
        stampHeaderValue: encodeStamp({
          publicKey: session.publicKeyHex,
          scheme: STAMP_SCHEME,
          signature: toHex(compactToCanonicalDerP256(compact)),
        }),
      };
    },
    async clear(targetKey) {
      session = undefined;
      if (!targetKey) return;
      memoryTarget = undefined;
      if (await persistent()) await withStore(dbName, "readwrite", (s) => s.delete(TARGET));
    },
  };
}
