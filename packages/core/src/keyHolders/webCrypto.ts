import {
  compactToCanonicalDerP256,
  encodeStamp,
  generateTargetKeyPair,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  type StampHeader,
  toHex,
} from "@latchkey/protocol";
import { SignerError } from "../errors";
import type { KeyHolder } from "./types";

// The same key store runs inside the auth frame (packages/frames/src/keyStore.ts); keep them in step.

export interface WebCryptoKeyHolderOptions {
  /** IndexedDB database that keeps the target key. */
  dbName?: string;
}

const STORE = "keys";
const TARGET = "target";

interface StoredTarget {
  privateKey: CryptoKey;
  publicKeyHex: string;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function openDb(name: string): Promise<IDBDatabase> {
  const req = indexedDB.open(name, 1);
  req.onupgradeneeded = () => req.result.createObjectStore(STORE);
  return request(req);
}

async function withStore<T>(
  name: string,
  mode: IDBTransactionMode,
  fn: (store: IDBObjectStore) => IDBRequest<T>,
) {
  const db = await openDb(name);
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
  const pub = p256PublicKeyFromPrivate(privateKey, false);
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
  return { key, publicKeyHex: toHex(p256PublicKeyFromPrivate(privateKey, true)) };
}

/**
 * Keys held by WebCrypto in this page, for apps that do not want an iframe: the target key is a
 * non-extractable ECDH key kept in IndexedDB, the session key a non-extractable ECDSA key kept only in
 * memory (after a reload the signer re-injects the stored bundle). Scripts of the page can stamp but
 * cannot export either key.
 *
 * @example
 * const signer = createSigner({ baseUrl, apiKey, keyHolder: createWebCryptoKeyHolder() });
 */
export function createWebCryptoKeyHolder(options: WebCryptoKeyHolderOptions = {}): KeyHolder {
  const dbName = options.dbName ?? "latchkey-keys";
  let session: { key: CryptoKey; publicKeyHex: string } | undefined;

  const loadTarget = () => withStore<StoredTarget | undefined>(dbName, "readonly", (s) => s.get(TARGET));

  return {
    kind: "webcrypto",
    async initTargetKey() {
      try {
        const existing = await loadTarget();
        if (existing) return existing.publicKeyHex;
        const { privateKey, publicKeyHex } = await generateTargetKeyPair(false);
        await withStore(dbName, "readwrite", (s) =>
          s.put({ privateKey, publicKeyHex } satisfies StoredTarget, TARGET),
        );
        return publicKeyHex;
      } catch (cause) {
        throw new SignerError("CREATE_API_KEY_FAILED", { cause });
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
        throw new SignerError("INJECT_BUNDLE_FAILED", { cause });
      }
    },
    async stamp(body): Promise<StampHeader> {
      if (!session) throw new SignerError("NOT_AUTHENTICATED");
      const compact = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          session.key,
          new TextEncoder().encode(body),
        ),
      );
      const stampHeaderValue = encodeStamp({
        publicKey: session.publicKeyHex,
        scheme: STAMP_SCHEME,
        signature: toHex(compactToCanonicalDerP256(compact)),
      });
      return { stampHeaderName: STAMP_HEADER_NAME, stampHeaderValue };
    },
    async clear(clearOptions) {
      session = undefined;
      if (clearOptions?.targetKey ?? true) await withStore(dbName, "readwrite", (s) => s.delete(TARGET));
    },
  };
}
