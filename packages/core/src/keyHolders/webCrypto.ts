import { SignerError } from "../errors";
import { shareHolderCustody } from "./shareHolderCustody";
import type { KeyHolder } from "./types";

/** The IndexedDB database the in-page key holder keeps its target key in. */
export interface WebCryptoKeyHolderOptions {
  /** IndexedDB database that keeps the target key. */
  dbName?: string;
}

// The key store (and with it the protocol's P-256 and HPKE) loads on the key holder's first use.
const loadKeyStore = () => import("@latchkey/keystore");

/** The key store's failures as the signer's catalogue errors (the same codes). */
async function asSignerError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    const { KeyStoreError } = await loadKeyStore();
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
  const openStore = () =>
    loadKeyStore().then((m) => m.createBrowserKeyStore(options.dbName ?? "latchkey-keys"));
  let store: ReturnType<typeof openStore> | undefined;
  const keys = () => {
    store ??= openStore();
    return store;
  };
  let shares: Promise<import("@latchkey/keystore").ShareHolder> | undefined;
  const shareHolder = () =>
    (shares ??= Promise.all([loadKeyStore(), keys()]).then(([m, k]) => m.createShareHolder(k.userShares)));
  const split = shareHolderCustody(shareHolder);
  return {
    kind: "webcrypto",
    initTargetKey: () => asSignerError(async () => (await keys()).initTargetKey()),
    getTargetPublicKey: async () => (await keys()).getTargetPublicKey(),
    injectCredentialBundle: (bundle) =>
      asSignerError(async () => (await keys()).injectCredentialBundle(bundle)),
    stamp: (body) =>
      asSignerError(async () => {
        return split.withUserShare(body, await (await keys()).stamp(body));
      }),
    // The session's keys only: the user shares of split wallets are the device's and stay.
    clear: async (clearOptions) => (await keys()).clear(clearOptions?.targetKey ?? true),
    custody: split.custody,
  };
}
