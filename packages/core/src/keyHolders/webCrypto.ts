import { createBrowserKeyStore, KeyStoreError } from "@latchkey/keystore";
import { SignerError } from "../errors";
import type { KeyHolder } from "./types";

/** The IndexedDB database the in-page key holder keeps its target key in. */
export interface WebCryptoKeyHolderOptions {
  /** IndexedDB database that keeps the target key. */
  dbName?: string;
}

/** The key store's failures as the signer's catalogue errors (the same codes). */
async function asSignerError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    if (cause instanceof KeyStoreError) throw new SignerError(cause.code, { cause });
    throw cause;
  }
}

/**
 * Keys held by WebCrypto in this page, for apps that do not want an iframe: the target key is a
 * non-extractable ECDH key kept in IndexedDB, the session key a non-extractable ECDSA key kept only in
 * memory (after a reload the signer re-injects the stored bundle). Scripts of the page can stamp but
 * cannot export either key. The store is the one the auth frame runs (@latchkey/keystore).
 *
 * @example
 * const signer = createSigner({ baseUrl, apiKey, keyHolder: createWebCryptoKeyHolder() });
 */
export function createWebCryptoKeyHolder(options: WebCryptoKeyHolderOptions = {}): KeyHolder {
  const keys = createBrowserKeyStore(options.dbName ?? "latchkey-keys");
  return {
    kind: "webcrypto",
    initTargetKey: () => asSignerError(() => keys.initTargetKey()),
    getTargetPublicKey: () => keys.getTargetPublicKey(),
    injectCredentialBundle: (bundle) => asSignerError(() => keys.injectCredentialBundle(bundle)),
    stamp: (body) => asSignerError(() => keys.stamp(body)),
    clear: (clearOptions) => keys.clear(clearOptions?.targetKey ?? true),
  };
}
