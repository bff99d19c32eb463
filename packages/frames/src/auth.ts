import { type BrowserKeyStore, createBrowserKeyStore, KeyStoreError } from "@latchkey/keystore";
import type { FrameRequest } from "@latchkey/protocol/frame";
import { serveParent } from "./serveParent";

/**
 * The auth frame (`/frames/auth`): holds the keys for the host page. It accepts a MessagePort only from
 * its parent window, and only when the parent's origin is one the app allows (the service also sends
 * `frame-ancestors` with those origins). It makes no network requests.
 */

/** The IndexedDB database of the keys of the pages on `parentOrigin`. */
const authFrameDatabase = (parentOrigin: string) => `latchkey-auth-frame ${parentOrigin}`;

/**
 * One key store per parent origin. Every page that embeds this frame from one site shares its storage
 * (the browser partitions a third-party frame's storage by the top-level site, and a first-party frame has
 * one storage for all): with one store, signing out of one app, or its session expiring, would delete the
 * target key of every other app on that site, and sign them out at their next load.
 */
const stores = new Map<string, BrowserKeyStore>();
function keysOf(parentOrigin: string): BrowserKeyStore {
  let keys = stores.get(parentOrigin);
  if (!keys) {
    keys = createBrowserKeyStore(authFrameDatabase(parentOrigin));
    stores.set(parentOrigin, keys);
  }
  return keys;
}

async function handle(request: FrameRequest, parentOrigin: string): Promise<unknown> {
  const keys = keysOf(parentOrigin);
  const { params } = request;
  switch (request.method) {
    case "initTargetKey":
      return keys.initTargetKey();
    case "getTargetPublicKey":
      return keys.getTargetPublicKey();
    case "injectCredentialBundle":
      if (typeof params?.bundle !== "string") throw new TypeError("bundle must be a string");
      return keys.injectCredentialBundle(params.bundle);
    case "stamp":
      if (typeof params?.body !== "string") throw new TypeError("body must be a string");
      return keys.stamp(params.body);
    case "clear":
      return keys.clear(params?.targetKey !== false);
    default:
      throw new TypeError("unknown method");
  }
}

serveParent<FrameRequest>({
  handle,
  codeOf: (error) => (error instanceof KeyStoreError ? error.code : undefined),
  // Where keys live is settled before the first request: storage refused means memory, said up front.
  async ready(parentOrigin) {
    const storage = await keysOf(parentOrigin).storage();
    return {
      storage: storage.kind,
      ...(storage.storageError ? { storageError: storage.storageError } : {}),
    };
  },
});
