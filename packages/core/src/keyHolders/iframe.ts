import type { StampHeader } from "@latchkey/protocol";
import {
  FRAME_INIT_MESSAGE,
  FRAME_READY_MESSAGE,
  type FrameMethod,
  type FrameReadyMessage,
  type FrameRequest,
  type FrameResponse,
} from "@latchkey/protocol/frame";
import { type CoreErrorCode, LatchkeyError, SignerError, type SignerErrorCode } from "../errors";
import type { KeyHolder, KeyHolderStorage } from "./types";

/** The auth frame's element id unless `iframeId` says otherwise. */
export const DEFAULT_IFRAME_ID = "latchkey-signer-iframe";

/** Where the auth frame is, where its hidden iframe goes, and how long to wait for it. */
export interface IframeKeyHolderOptions {
  /** The frame page, `<service>/frames/auth` (an `appId` query parameter narrows its frame-ancestors). */
  frameUrl: string;
  /** Where the hidden iframe goes; `document.body` by default. */
  container?: HTMLElement;
  iframeId?: string;
  /** How long to wait for the frame to load (ms, default 15 s: a slow network may need it). */
  timeoutMs?: number;
  /**
   * How long a loaded frame has to answer (ms, default 1.5 s). A frame that loaded but stays silent was
   * refused (frame-ancestors), is not the auth frame (wrong URL), or refused this page's origin.
   */
  answerTimeoutMs?: number;
}

/**
 * Keys held by the auth frame, a page of the signer service on its own origin: its target key is a
 * non-extractable WebCrypto key in the frame's IndexedDB and the session key lives only in the frame's
 * memory, so the host page's scripts can ask for stamps but never read a key. Requests go over a
 * MessageChannel handed to the frame's exact origin and are matched to answers by id.
 *
 * @example
 * const keyHolder = createIframeKeyHolder({ frameUrl: "https://auth.example.com/frames/auth" });
 */
export function createIframeKeyHolder(options: IframeKeyHolderOptions): KeyHolder {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const frameOrigin = new URL(options.frameUrl).origin;
  const answerTimeoutMs = options.answerTimeoutMs ?? 1_500;
  let connection:
    | Promise<{ port: MessagePort; iframe: HTMLIFrameElement; storage: KeyHolderStorage }>
    | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  function connect() {
    connection ??= new Promise((resolve, reject) => {
      const id = options.iframeId ?? DEFAULT_IFRAME_ID;
      document.getElementById(id)?.remove();
      const iframe = document.createElement("iframe");
      iframe.id = id;
      iframe.src = options.frameUrl;
      iframe.title = "Latchkey signer";
      iframe.setAttribute("aria-hidden", "true");
      iframe.style.display = "none";
      const fail = (error: LatchkeyError) => {
        clearTimeout(timer);
        connection = undefined;
        iframe.remove();
        reject(error);
      };
      let timer = setTimeout(
        () => fail(new LatchkeyError("FRAME_TIMEOUT", `The auth frame at ${options.frameUrl} did not load`)),
        timeoutMs,
      );
      iframe.addEventListener("load", () => {
        // Loaded: the frame answers at once unless the browser refused it (frame-ancestors), the URL is
        // not the auth frame, or the frame refused this page's origin. Each is told in a moment.
        clearTimeout(timer);
        timer = setTimeout(
          () =>
            fail(
              new LatchkeyError(
                "FRAME_UNAVAILABLE",
                `The auth frame at ${options.frameUrl} loaded but did not answer: this page's origin ` +
                  `(${window.location.origin}) may not be allowed by the app, or the URL is not the auth frame`,
              ),
            ),
          answerTimeoutMs,
        );
        const channel = new MessageChannel();
        channel.port1.onmessage = (event: MessageEvent) => {
          const data = event.data as Partial<FrameReadyMessage> & Partial<FrameResponse>;
          if (data?.type === FRAME_READY_MESSAGE) {
            clearTimeout(timer);
            const storage: KeyHolderStorage =
              data.storage === "memory"
                ? { storage: "memory", ...(data.storageError ? { storageError: data.storageError } : {}) }
                : { storage: "persistent" };
            if (storage.storage === "memory") {
              console.warn(
                `[latchkey] The auth frame at ${frameOrigin} may not use storage here` +
                  `${storage.storageError ? ` (${storage.storageError})` : ""}. Sign-in works, but the ` +
                  "session ends when this page is reloaded. Browsers refuse storage to a frame from another " +
                  "site: serve the service on the app's own site (e.g. auth.example.com for example.com).",
              );
            }
            resolve({ port: channel.port1, iframe, storage });
            return;
          }
          if (typeof data?.id !== "number") return;
          const request = pending.get(data.id);
          if (!request) return;
          pending.delete(data.id);
          if (data.error) {
            const code = data.error.code;
            request.reject(
              code && code in SIGNER_ERROR_CODES
                ? new SignerError(code as SignerErrorCode)
                : new LatchkeyError((code ?? "FRAME_ERROR") as CoreErrorCode, data.error.message),
            );
          } else request.resolve(data.result);
        };
        // The explicit target origin: the port reaches the frame only if it really is the service's page.
        iframe.contentWindow?.postMessage({ type: FRAME_INIT_MESSAGE }, frameOrigin, [channel.port2]);
      });
      const attach = () => (options.container ?? document.body).appendChild(iframe);
      // Called from a script in <head>: wait for the body.
      if (options.container || document.body) attach();
      else document.addEventListener("DOMContentLoaded", attach, { once: true });
    });
    return connection;
  }

  async function call<T>(method: FrameMethod, params: FrameRequest["params"] = {}): Promise<T> {
    const { port } = await connect();
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      port.postMessage({ id, method, params } satisfies FrameRequest);
    });
  }

  return {
    kind: "iframe",
    ready: async () => (await connect()).storage,
    initTargetKey: () => call<string>("initTargetKey"),
    getTargetPublicKey: () => call<string | null>("getTargetPublicKey"),
    injectCredentialBundle: (bundle) => call<string>("injectCredentialBundle", { bundle }),
    stamp: (body) => call<StampHeader>("stamp", { body }),
    clear: async (clearOptions) => {
      await call<void>("clear", { targetKey: clearOptions?.targetKey ?? true });
    },
    destroy() {
      const current = connection;
      connection = undefined;
      void current?.then(({ port, iframe }) => {
        port.close();
        iframe.remove();
      });
      for (const request of pending.values())
        request.reject(new LatchkeyError("FRAME_CLOSED", "The auth frame was closed"));
      pending.clear();
    },
  };
}

const SIGNER_ERROR_CODES: Record<string, true> = {
  NOT_AUTHENTICATED: true,
  CREATE_API_KEY_FAILED: true,
  INJECT_BUNDLE_FAILED: true,
};
