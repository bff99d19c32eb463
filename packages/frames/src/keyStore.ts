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

// The same key store backs @latchkey/core's in-page WebCrypto key holder; keep them in step.

const STORE = "keys";
const TARGET = "target";

interface StoredTarget {
  privateKey: CryptoKey;
  publicKeyHex: string;
}

/** An error the frame answers with; `code` is one the parent maps to its catalogue message. */
export class FrameError extends Error {
  constructor(
    readonly code: "NOT_AUTHENTICATED" | "CREATE_API_KEY_FAILED" | "INJECT_BUNDLE_FAILED",
    message: string,
  ) {
    super(message);
  }
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

/**
 * The frame's keys: the target key is a non-extractable ECDH key in IndexedDB (it survives reloads so
 * a stored bundle can be opened again); the session key is a non-extractable ECDSA key in memory only.
 */
export class KeyStore {
  #session: { key: CryptoKey; publicKeyHex: string } | undefined;

  constructor(private readonly dbName: string) {}

  #loadTarget() {
    return withStore<StoredTarget | undefined>(this.dbName, "readonly", (s) => s.get(TARGET));
  }

  async initTargetKey(): Promise<string> {
    try {
      const existing = await this.#loadTarget();
      if (existing) return existing.publicKeyHex;
      const { privateKey, publicKeyHex } = await generateTargetKeyPair(false);
      await withStore(this.dbName, "readwrite", (s) =>
        s.put({ privateKey, publicKeyHex } satisfies StoredTarget, TARGET),
      );
      return publicKeyHex;
    } catch {
      throw new FrameError("CREATE_API_KEY_FAILED", "Failed to create api key");
    }
  }

  async getTargetPublicKey(): Promise<string | null> {
    return (await this.#loadTarget())?.publicKeyHex ?? null;
  }

  async injectCredentialBundle(bundle: string): Promise<string> {
    try {
      const target = await this.#loadTarget();
      if (!target) throw new Error("no target key");
      const raw = await openCredentialBundle({
        bundle,
        targetPrivateKey: target.privateKey,
        targetPublicKey: target.publicKeyHex,
      });
      try {
        const pub = p256PublicKeyFromPrivate(raw, false);
        const key = await crypto.subtle.importKey(
          "jwk",
          {
            kty: "EC",
            crv: "P-256",
            d: base64url(raw),
            x: base64url(pub.subarray(1, 33)),
            y: base64url(pub.subarray(33, 65)),
            ext: false,
          },
          { name: "ECDSA", namedCurve: "P-256" },
          false,
          ["sign"],
        );
        this.#session = { key, publicKeyHex: toHex(p256PublicKeyFromPrivate(raw, true)) };
      } finally {
        raw.fill(0);
      }
      return this.#session.publicKeyHex;
    } catch {
      throw new FrameError("INJECT_BUNDLE_FAILED", "Failed to inject credential bundle");
    }
  }

  async stamp(body: string): Promise<StampHeader> {
    if (!this.#session) throw new FrameError("NOT_AUTHENTICATED", "Signer not authenticated");
    const compact = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        this.#session.key,
        new TextEncoder().encode(body),
      ),
    );
    return {
      stampHeaderName: STAMP_HEADER_NAME,
      stampHeaderValue: encodeStamp({
        publicKey: this.#session.publicKeyHex,
        scheme: STAMP_SCHEME,
        signature: toHex(compactToCanonicalDerP256(compact)),
      }),
    };
  }

  async clear(targetKey: boolean): Promise<void> {
    this.#session = undefined;
    if (targetKey) await withStore(this.dbName, "readwrite", (s) => s.delete(TARGET));
  }
}
