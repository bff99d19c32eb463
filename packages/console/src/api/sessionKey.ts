import {
  compactToCanonicalDerP256,
  compressP256PublicKey,
  encodeStamp,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  toHex,
} from "@latchkey/protocol";

/** Who is signed in, as `console/sign_in` answered. */
export interface ConsoleAdmin {
  adminId: string;
  name: string;
  appId: string;
  appName: string;
  organizationId: string;
}

/**
 * A console session: a P-256 key pair made by WebCrypto in this browser, its private half
 * non-extractable (scripts can sign with it, never read it), registered with the service at sign-in.
 */
export interface AdminSession {
  privateKey: CryptoKey;
  /** Compressed, hex: what the service knows the session by. */
  publicKey: string;
  sessionId: string;
  expiresAt: number;
  admin: ConsoleAdmin;
}

const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;

/** A new session key pair: the private key can sign and never leaves WebCrypto. */
export async function createSessionKey(): Promise<{ privateKey: CryptoKey; publicKey: string }> {
  const pair = await crypto.subtle.generateKey(ECDSA, false, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { privateKey: pair.privateKey, publicKey: toHex(compressP256PublicKey(raw)) };
}

/** `X-Stamp` over the exact body: ECDSA P-256 SHA-256 by the session key, DER with low s. */
export async function stampWithSession(
  session: Pick<AdminSession, "privateKey" | "publicKey">,
  body: string,
) {
  const compact = new Uint8Array(
    await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      session.privateKey,
      new TextEncoder().encode(body),
    ),
  );
  const stamp = encodeStamp({
    publicKey: session.publicKey,
    scheme: STAMP_SCHEME,
    signature: toHex(compactToCanonicalDerP256(compact)),
  });
  return { [STAMP_HEADER_NAME]: stamp };
}

// The session survives a reload: IndexedDB keeps the CryptoKey object itself, still non-extractable.
const DB = "latchkey-console";
const STORE = "session";

function openStore(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function withStore<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openStore();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = fn(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  } finally {
    db.close();
  }
}

export async function saveSession(session: AdminSession): Promise<void> {
  await withStore("readwrite", (s) => s.put(session, "current"));
}

/** The stored session, unless it has expired (then it is forgotten). */
export async function loadSession(now = Date.now()): Promise<AdminSession | null> {
  try {
    const session = (await withStore("readonly", (s) => s.get("current"))) as AdminSession | undefined;
    if (!session) return null;
    if (session.expiresAt <= now) {
      await forgetSession();
      return null;
    }
    return session;
  } catch {
    return null;
  }
}

export async function forgetSession(): Promise<void> {
  await withStore("readwrite", (s) => s.delete("current")).catch(() => undefined);
}
