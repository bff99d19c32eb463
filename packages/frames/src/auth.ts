import { createBrowserKeyStore, KeyStoreError } from "@latchkey/keystore";
import type { FrameRequest } from "@latchkey/protocol/frame";
import { serveParent } from "./serveParent";

/**
 * The auth frame (`/frames/auth`): holds the keys for the host page. It accepts a MessagePort only from
 * its parent window, and only when the parent's origin is one the app allows (the service also sends
 * `frame-ancestors` with those origins). It makes no network requests.
 */
const keys = createBrowserKeyStore("latchkey-auth-frame");

async function handle(request: FrameRequest): Promise<unknown> {
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
  async ready() {
    const storage = await keys.storage();
    return {
      storage: storage.kind,
      ...(storage.storageError ? { storageError: storage.storageError } : {}),
    };
  },
});
