import {
  FRAME_INIT_MESSAGE,
  FRAME_READY_MESSAGE,
  type FrameReadyMessage,
  type FrameResponse,
} from "@latchkey/protocol/frame";
import { type CoreErrorCode, LatchkeyError } from "../errors";

/** Where a service frame page is, where its iframe goes, and how long to wait for it. */
export interface FrameChannelOptions {
  /** The frame page on the service, e.g. `<service>/frames/auth`. */
  frameUrl: string;
  /** Where the iframe goes; `document.body` by default. */
  container?: HTMLElement | undefined;
  /** The iframe's element id; an element with this id is replaced. */
  iframeId: string;
  /** The iframe's title (what assistive technology reads). */
  title: string;
  /** What errors call the frame, e.g. "auth frame". */
  name: string;
  /** A hidden iframe (the auth frame), or one the user sees (the export frame). */
  hidden: boolean;
  /** How long to wait for the frame to load (ms). */
  timeoutMs: number;
  /** How long a loaded frame has to answer (ms): a silent one was refused or is not the frame. */
  answerTimeoutMs: number;
  /** The error a frame's `{code, message}` answer becomes. */
  toError?: (code: string, message: string) => Error;
}

/** An open channel to a frame: its first message, and requests matched to answers by id. */
export interface FrameChannel {
  iframe: HTMLIFrameElement;
  ready: FrameReadyMessage;
  call<T>(method: string, params?: object): Promise<T>;
  /** Closes the port, removes the iframe and fails the requests still waiting (FRAME_CLOSED). */
  close(): void;
}

/**
 * Opens a service frame page in an iframe and hands it a MessageChannel port, addressed to the frame's
 * exact origin, so the port reaches the frame only if it really is the service's page. Resolves once the
 * frame says it is ready; fails with FRAME_TIMEOUT (did not load) or FRAME_UNAVAILABLE (loaded but silent:
 * refused by its frame-ancestors, a wrong URL, or this page's origin is not one the app allows).
 *
 * @example
 * const channel = await openFrameChannel({ frameUrl, iframeId: "x", title: "Export", name: "export frame",
 *   hidden: false, container, timeoutMs: 15_000, answerTimeoutMs: 1_500 });
 * const publicKey = await channel.call<string>("getTargetPublicKey");
 */
export function openFrameChannel(options: FrameChannelOptions): Promise<FrameChannel> {
  const frameOrigin = new URL(options.frameUrl).origin;
  const toError =
    options.toError ?? ((code: string, message: string) => new LatchkeyError(code as CoreErrorCode, message));
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  return new Promise((resolve, reject) => {
    document.getElementById(options.iframeId)?.remove();
    const iframe = document.createElement("iframe");
    iframe.id = options.iframeId;
    iframe.src = options.frameUrl;
    iframe.title = options.title;
    if (options.hidden) {
      iframe.setAttribute("aria-hidden", "true");
      iframe.style.display = "none";
    } else {
      // A visible frame fills its container's width; the page may restyle it by its id.
      iframe.style.width = "100%";
      iframe.style.height = "420px";
      iframe.style.border = "0";
    }
    const fail = (error: LatchkeyError) => {
      clearTimeout(timer);
      iframe.remove();
      reject(error);
    };
    let timer = setTimeout(
      () =>
        fail(new LatchkeyError("FRAME_TIMEOUT", `The ${options.name} at ${options.frameUrl} did not load`)),
      options.timeoutMs,
    );
    iframe.addEventListener("load", () => {
      // Loaded: the frame answers at once unless the browser refused it (frame-ancestors), the URL is
      // not the frame, or the frame refused this page's origin. Each is told in a moment.
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new LatchkeyError(
              "FRAME_UNAVAILABLE",
              `The ${options.name} at ${options.frameUrl} loaded but did not answer: this page's origin ` +
                `(${window.location.origin}) may not be allowed by the app, or the URL is not the ${options.name}`,
            ),
          ),
        options.answerTimeoutMs,
      );
      const channel = new MessageChannel();
      const port = channel.port1;
      port.onmessage = (event: MessageEvent) => {
        const data = event.data as Partial<FrameReadyMessage> & Partial<FrameResponse>;
        if (data?.type === FRAME_READY_MESSAGE) {
          clearTimeout(timer);
          resolve({
            iframe,
            ready: data as FrameReadyMessage,
            call<T>(method: string, params: object = {}) {
              const id = nextId++;
              return new Promise<T>((resolveCall, rejectCall) => {
                pending.set(id, { resolve: resolveCall as (value: unknown) => void, reject: rejectCall });
                port.postMessage({ id, method, params });
              });
            },
            close() {
              port.close();
              iframe.remove();
              for (const request of pending.values())
                request.reject(new LatchkeyError("FRAME_CLOSED", `The ${options.name} was closed`));
              pending.clear();
            },
          });
          return;
        }
        if (typeof data?.id !== "number") return;
        const request = pending.get(data.id);
        if (!request) return;
        pending.delete(data.id);
        if (data.error) request.reject(toError(data.error.code ?? "FRAME_ERROR", data.error.message));
        else request.resolve(data.result);
      };
      iframe.contentWindow?.postMessage({ type: FRAME_INIT_MESSAGE }, frameOrigin, [channel.port2]);
    });
    const attach = () => (options.container ?? document.body).appendChild(iframe);
    // Called from a script in <head>: wait for the body.
    if (options.container || document.body) attach();
    else document.addEventListener("DOMContentLoaded", attach, { once: true });
  });
}
