import { createBrowserKeyStore, KeyStoreError } from "@latchkey/keystore";
import { isOriginAllowed } from "@latchkey/protocol";
import {
  FRAME_INIT_MESSAGE,
  FRAME_READY_MESSAGE,
  type FrameReadyMessage,
  type FrameRequest,
  type FrameResponse,
} from "@latchkey/protocol/frame";
import { allowedOrigins } from "./meta";

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

function start(): void {
  const origins = allowedOrigins();
  window.addEventListener("message", async (event: MessageEvent) => {
    if (event.source !== window.parent || window.parent === window) return;
    if (!isOriginAllowed(origins, event.origin)) return;
    const data = event.data as { type?: string } | null;
    const port = event.ports[0];
    if (data?.type !== FRAME_INIT_MESSAGE || !port) return;
    port.onmessage = async (message: MessageEvent) => {
      const request = message.data as FrameRequest;
      if (typeof request?.id !== "number") return;
      let response: FrameResponse;
      try {
        response = { id: request.id, result: await handle(request) };
      } catch (error) {
        response = {
          id: request.id,
          error:
            error instanceof KeyStoreError
              ? { code: error.code, message: error.message }
              : { code: "FRAME_ERROR", message: (error as Error).message ?? "frame error" },
        };
      }
      port.postMessage(response);
    };
    // Where keys live is settled before the first request: storage refused means memory, said up front.
    const storage = await keys.storage();
    port.postMessage({
      type: FRAME_READY_MESSAGE,
      storage: storage.kind,
      ...(storage.storageError ? { storageError: storage.storageError } : {}),
    } satisfies FrameReadyMessage);
  });
}

start();
