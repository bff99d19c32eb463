import {
  compactToCanonicalDerP256,
  encodeStamp,
  generateP256PrivateKey,
  generateTargetKeyPair,
  openCredentialBundle,
  p256PublicKeysOnce,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  type StampHeader,
  sealCredentialBundle,
  toHex,
} from "@latchkey/protocol";
import { decodeBase64url, encodeBase64url } from "@latchkey/protocol/codecs";
import type { UserShareStorage } from "./userShares";

export {
  type CreatedSplitWallet,
  createShareHolder,
  memoryUserShares,
  type ProtectedShare,
  putWalletShare,
  type RecoveryInput,
  type ShareHolder,
  type SignInWallet,
  type UserShareStorage,
  type WalletShareEntry,
  walletShareEntries,
  walletShareName,
} from "./userShares";

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
  /** An `X-Stamp` over the exact body (canonical encoding, low s; the service accepts either s). */
  stamp(body: string): Promise<StampHeader>;
  /** Forgets the session key, and the target key too when `targetKey`. Never a user share. */
  clear(targetKey: boolean): Promise<void>;
  /**
   * The user shares of split-custody wallets, by organisation: encrypted at rest under a non-extractable
   * AES-GCM key kept beside them (in memory when storage is refused). They survive sign-out: they are
   * the device's half of the wallet.
   */
  readonly userShares: UserShareStorage;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function openDatabase(name: string): Promise<IDBDatabase> {
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  return request(open);
}

/**
 * One IndexedDB connection for the life of the store (opening one costs a few ms per read in a busy page:
 * sign-in reads the target key twice). It is dropped when the browser closes it or another version
 * wants the database, and the next read opens a new one.
 */
function connection(name: string) {
  let db: Promise<IDBDatabase> | undefined;
  const get = () =>
    (db ??= openDatabase(name).then(
      (opened) => {
        const drop = () => {
          db = undefined;
        };
        opened.onversionchange = () => {
          opened.close();
          drop();
        };
        opened.onclose = drop;
        return opened;
      },
      (error: unknown) => {
        db = undefined;
        throw error;
      },
    ));
  return async function withStore<T>(mode: IDBTransactionMode, fn: (store: IDBObjectStore) => IDBRequest<T>) {
    let opened = await get();
    let transaction: IDBTransaction;
    try {
      transaction = opened.transaction(STORE, mode);
    } catch {
      // The connection closed under us (e.g. the browser reclaimed it): one more try on a new one.
      db = undefined;
      opened = await get();
      transaction = opened.transaction(STORE, mode);
    }
    return request(fn(transaction.objectStore(STORE)));
  };
}

// PKCS#8 of a P-256 key holding only the scalar (RFC 5915 ECPrivateKey without its optional public key).
const PKCS8_P256_PREFIX = Uint8Array.from([
  0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
  0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20,
]);
const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256" } as const;

/**
 * The public half of a raw P-256 scalar as JWK coordinates. The browser's own crypto derives it where it
 * accepts a PKCS#8 key without the public key (Chromium, WebKit and node do): microseconds. Elsewhere one
 * scalar multiplication in JavaScript, without noble's base-point table (a fresh frame would otherwise
 * spend 100–400 ms building that table for this one key, between the code's answer and `connected`).
 */
async function p256PublicJwk(privateKey: Uint8Array): Promise<{ x: string; y: string }> {
  const pkcs8 = new Uint8Array(PKCS8_P256_PREFIX.length + 32);
  pkcs8.set(PKCS8_P256_PREFIX);
  pkcs8.set(privateKey, PKCS8_P256_PREFIX.length);
  try {
    const temporary = await crypto.subtle.importKey("pkcs8", pkcs8, ECDSA_P256, true, ["sign"]);
    const { x, y } = await crypto.subtle.exportKey("jwk", temporary);
    if (x && y) return { x, y };
  } catch {
    // This browser wants the public key inside the PKCS#8: compute it below.
  } finally {
    pkcs8.fill(0);
  }
  const { uncompressed } = p256PublicKeysOnce(privateKey);
  return {
    x: encodeBase64url(uncompressed.subarray(1, 33)),
    y: encodeBase64url(uncompressed.subarray(33, 65)),
  };
}

/** The compressed public key (hex) of JWK coordinates (base64url without padding, RFC 7518 §6.2.1). */
function compressedHex(x: string, y: string): string {
  const out = new Uint8Array(33);
  out[0] = 0x02 | ((decodeBase64url(y)[31] ?? 0) & 1);
  out.set(decodeBase64url(x), 1);
  return toHex(out);
}

/** A raw P-256 private key as a non-extractable WebCrypto signing key. */
async function importSessionKey(privateKey: Uint8Array): Promise<{ key: CryptoKey; publicKeyHex: string }> {
  const { x, y } = await p256PublicJwk(privateKey);
  const key = await crypto.subtle.importKey(
    "jwk",
    { kty: "EC", crv: "P-256", d: encodeBase64url(privateKey), x, y, ext: false },
    ECDSA_P256,
    false,
    ["sign"],
  );
  return { key, publicKeyHex: compressedHex(x, y) };
}

type SessionKey = { key: CryptoKey; publicKeyHex: string };

async function stampWith(session: SessionKey, body: string): Promise<StampHeader> {
  const compact = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, session.key, new TextEncoder().encode(body)),
  );
  return {
    stampHeaderName: STAMP_HEADER_NAME,
    stampHeaderValue: encodeStamp({
      publicKey: session.publicKeyHex,
      scheme: STAMP_SCHEME,
      signature: toHex(compactToCanonicalDerP256(compact)),
    }),
  };
}

/**
 * Runs the sign-in's own path once on throw-away keys (a target pair that is never stored, a random
 * session key): seal, open, import, stamp. A fresh frame runs its first bundle cold — code compiled on
 * first call, the platform's crypto set up on first use — which cost 10–15 ms between the code's answer
 * and `connected` (bench/otp-connected.ts). Done once a sign-in starts, while the user reads the email.
 */
async function warmUp(): Promise<void> {
  const target = await generateTargetKeyPair(false);
  const secret = generateP256PrivateKey();
  try {
    const bundle = await sealCredentialBundle({ plaintext: secret, targetPublicKey: target.publicKeyHex });
    const opened = await openCredentialBundle({
      bundle,
      targetPrivateKey: target.privateKey,
      targetPublicKey: target.publicKeyHex,
    });
    opened.fill(0);
    await stampWith(await importSessionKey(secret), "{}");
  } finally {
    secret.fill(0);
  }
}

const SHARE_WRAP_KEY = "share-wrap";
const shareRecord = (organizationId: string) => `share:${organizationId}`;
interface StoredShare {
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: ArrayBuffer;
}
type WithStore = ReturnType<typeof connection>;
const utf8 = (s: string) => new TextEncoder().encode(s);

/** The share at rest: AES-GCM under the store's wrap key, bound to its organisation (aad). */
async function readShare(withStore: WithStore, organizationId: string): Promise<Uint8Array | null> {
  const [key, stored] = await Promise.all([
    withStore<CryptoKey | undefined>("readonly", (s) => s.get(SHARE_WRAP_KEY)),
    withStore<StoredShare | undefined>("readonly", (s) => s.get(shareRecord(organizationId))),
  ]);
  if (!key || !stored) return null;
  return new Uint8Array(
    await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: stored.iv, additionalData: utf8(organizationId) },
      key,
      stored.ciphertext,
    ),
  );
}

async function writeShare(withStore: WithStore, organizationId: string, share: Uint8Array): Promise<void> {
  let key = await withStore<CryptoKey | undefined>("readonly", (s) => s.get(SHARE_WRAP_KEY));
  if (!key) {
    const made = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
      "encrypt",
      "decrypt",
    ]);
    // `add` fails when another tab stored one first: then that one is the key.
    await withStore("readwrite", (s) => s.add(made, SHARE_WRAP_KEY)).catch(() => {});
    key = await withStore<CryptoKey | undefined>("readonly", (s) => s.get(SHARE_WRAP_KEY));
    if (!key) throw new Error("no share key");
  }
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: utf8(organizationId) },
    key,
    share as Uint8Array<ArrayBuffer>,
  );
  await withStore("readwrite", (s) =>
    s.put({ iv, ciphertext } satisfies StoredShare, shareRecord(organizationId)),
  );
}

/**
 * The user share a key store in database `dbName` keeps for `organizationId`, or null: for the export
 * frame, which reads the auth frame's store (the same origin and storage partition) to put the phrase
 * together.
 */
export function readStoredUserShare(dbName: string, organizationId: string): Promise<Uint8Array | null> {
  return readShare(connection(dbName), organizationId);
}

/**
 * The user shares a key store in database `dbName` keeps (persistent storage only): for the import frame,
 * which keeps an imported wallet's share in the auth frame's store (the same origin and storage
 * partition), and the export frame, which reads a further wallet's (docs/split-custody.md §5, Import).
 */
export function storedUserShares(dbName: string): UserShareStorage {
  const withStore = connection(dbName);
  return {
    get: (name) => readShare(withStore, name),
    put: (name, share) => writeShare(withStore, name, share),
  };
}

/**
 * A key store in IndexedDB database `dbName` (one per use: the frame and an in-page holder keep apart).
 *
 * @example
 * const keys = createBrowserKeyStore("latchkey-keys");
 * const targetPublicKey = await keys.initTargetKey();
 */
export function createBrowserKeyStore(dbName: string): BrowserKeyStore {
  let session: SessionKey | undefined;
  let warmed = false;
  // Once per store, after the first answer to initTargetKey: a bundle is on its way.
  const warmSoon = () => {
    if (warmed) return;
    warmed = true;
    setTimeout(() => {
      warmUp().catch(() => {
        // A failed warm-up costs the sign-in nothing but the time it would have saved.
      });
    }, 0);
  };
  // When IndexedDB is refused the target key stays in this variable: non-extractable all the same.
  let memoryTarget: StoredTarget | undefined;
  let settled: Promise<KeyStorage> | undefined;
  const withStore = connection(dbName);
  const storage = () =>
    (settled ??= withStore<StoredTarget | undefined>("readonly", (s) => s.get(TARGET)).then(
      (): KeyStorage => ({ kind: "persistent" }),
      (error: unknown): KeyStorage => ({
        kind: "memory",
        storageError: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      }),
    ));
  const persistent = async () => (await storage()).kind === "persistent";
  const memoryShares = new Map<string, Uint8Array>();
  const userShares: UserShareStorage = {
    async get(organizationId) {
      if (!(await persistent())) return memoryShares.get(organizationId)?.slice() ?? null;
      return readShare(withStore, organizationId);
    },
    async put(organizationId, share) {
      if (!(await persistent())) {
        memoryShares.get(organizationId)?.fill(0);
        memoryShares.set(organizationId, share.slice());
        return;
      }
      await writeShare(withStore, organizationId, share);
    },
  };
  const loadTarget = async () =>
    (await persistent())
      ? withStore<StoredTarget | undefined>("readonly", (s) => s.get(TARGET))
      : memoryTarget;

  return {
    storage,
    userShares,
    async initTargetKey() {
      try {
        const existing = await loadTarget();
        if (existing) {
          warmSoon();
          return existing.publicKeyHex;
        }
        const { privateKey, publicKeyHex } = await generateTargetKeyPair(false);
        if (await persistent()) {
          await withStore("readwrite", (s) =>
            s.put({ privateKey, publicKeyHex } satisfies StoredTarget, TARGET),
          );
        } else memoryTarget = { privateKey, publicKeyHex };
        warmSoon();
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
      return stampWith(session, body);
    },
    async clear(targetKey) {
      session = undefined;
      if (!targetKey) return;
      memoryTarget = undefined;
      if (await persistent()) await withStore("readwrite", (s) => s.delete(TARGET));
    },
  };
}
