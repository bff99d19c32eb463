import type { SiweSession } from "../types/externalWallets";

/**
 * Where the external-wallet connection is kept (spec §3, §9): the most recent connector id in a cookie for
 * 400 days (34,560,000 seconds: the spec's "ms" is a unit slip, a 9.6-hour cookie would forget the wallet
 * overnight), so a server can render the right state; the chain and account state in localStorage under
 * one fixed key. Free of wagmi: `init()` reads the cookie to decide whether to load the connectors at all.
 */
export const WALLET_STORAGE_KEY = "latchkey.wallet";
/** The cookie of the most recent connector id. */
export const RECENT_CONNECTOR_COOKIE = `${WALLET_STORAGE_KEY}.recentConnectorId`;
/** 400 days, in seconds. */
export const RECENT_CONNECTOR_MAX_AGE_SECONDS = 34_560_000;

interface CookieDocument {
  cookie: string;
}

function doc(): CookieDocument | undefined {
  return (globalThis as { document?: CookieDocument }).document;
}

function local(): Storage | undefined {
  try {
    return (globalThis as { localStorage?: Storage }).localStorage;
  } catch {
    return undefined; // storage blocked (third-party frame, privacy mode)
  }
}

/** The most recent connector id, from its cookie. */
export function readRecentConnectorId(): string | undefined {
  const cookies = doc()?.cookie ?? "";
  for (const part of cookies.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === RECENT_CONNECTOR_COOKIE) return decodeURIComponent(value.join("=")) || undefined;
  }
  return undefined;
}

export function writeRecentConnectorId(id: string | undefined): void {
  const d = doc();
  if (!d) return;
  d.cookie =
    id === undefined
      ? `${RECENT_CONNECTOR_COOKIE}=;path=/;max-age=0;samesite=lax`
      : `${RECENT_CONNECTOR_COOKIE}=${encodeURIComponent(id)};path=/;max-age=${RECENT_CONNECTOR_MAX_AGE_SECONDS};samesite=lax`;
}

/**
 * A wagmi `storage` (getItem/setItem/removeItem of strings, keys prefixed `latchkey.wallet.`): the recent
 * connector id goes to the cookie, everything else (the `store` of chain and account state, WalletConnect's
 * requested chains) to localStorage.
 */
export const walletStorage = {
  getItem(key: string): string | null {
    if (key === RECENT_CONNECTOR_COOKIE) {
      const id = readRecentConnectorId();
      return id === undefined ? null : JSON.stringify(id);
    }
    return local()?.getItem(key) ?? null;
  },
  setItem(key: string, value: string): void {
    if (key === RECENT_CONNECTOR_COOKIE) {
      writeRecentConnectorId(JSON.parse(value) as string);
      return;
    }
    try {
      local()?.setItem(key, value);
    } catch {
      // Full or blocked: the connection still works in this page.
    }
  },
  removeItem(key: string): void {
    if (key === RECENT_CONNECTOR_COOKIE) writeRecentConnectorId(undefined);
    else local()?.removeItem(key);
  },
};

const SIWE_KEY = `${WALLET_STORAGE_KEY}.siwe`;

/** The SIWE proof of the connected address, kept with the connection so a reload keeps it too. */
export function readSiwe(): SiweSession | undefined {
  try {
    const raw = local()?.getItem(SIWE_KEY);
    return raw ? (JSON.parse(raw) as SiweSession) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSiwe(siwe: SiweSession | undefined): void {
  try {
    if (siwe) local()?.setItem(SIWE_KEY, JSON.stringify(siwe));
    else local()?.removeItem(SIWE_KEY);
  } catch {
    // Blocked storage: the proof lives for this page only.
  }
}

/** Whether the stored chain and account state names a current connection (wagmi's persisted `store`). */
export function hasStoredConnection(): boolean {
  try {
    const raw = local()?.getItem(`${WALLET_STORAGE_KEY}.store`);
    if (!raw) return false;
    return Boolean((JSON.parse(raw) as { state?: { current?: unknown } }).state?.current);
  } catch {
    return false;
  }
}
