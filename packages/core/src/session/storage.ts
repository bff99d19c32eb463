/** The part of the Web Storage API the session manager uses (localStorage satisfies it). */
export interface SessionStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * A Map-backed storage for Node and tests.
 *
 * @example
 * const signer = createSigner({ baseUrl, apiKey, storage: createMemoryStorage() });
 */
export function createMemoryStorage(): SessionStorageLike {
  const map = new Map<string, string>();
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => {
      map.set(key, value);
    },
    removeItem: (key) => {
      map.delete(key);
    },
  };
}

/** localStorage when there is one (read on call, never at import), else a fresh memory storage. */
export function defaultStorage(): SessionStorageLike {
  try {
    const ls = (globalThis as { localStorage?: SessionStorageLike }).localStorage;
    if (ls) return ls;
  } catch {
    // Access can throw (opaque origins, disabled storage).
  }
  return createMemoryStorage();
}
