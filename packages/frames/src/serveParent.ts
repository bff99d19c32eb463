import { isOriginAllowed } from "@latchkey/protocol";
import {
  FRAME_INIT_MESSAGE,
  FRAME_READY_MESSAGE,
  type FrameReadyMessage,
  type FrameResponse,
} from "@latchkey/protocol/frame";
import { allowedOrigins } from "./meta";

/**
 * Serves a frame page's requests over a MessagePort that only its parent window may hand over, and only
 * from an origin the app allows (the page's `<meta>`; the service also sends `frame-ancestors` with
 * them). Each request `{id, …}` is answered `{id, result}` or `{id, error: {code, message}}`; once the
 * channel is open, `ready` tells the parent what the frame is ready with.
 */
export function serveParent<R extends { id: number }>(options: {
  /** Answers one request of the parent, whose origin is `parentOrigin`. */
  handle: (request: R, parentOrigin: string) => Promise<unknown>;
  /** The error's code for the parent, when it has one of its own (else FRAME_ERROR). */
  codeOf: (error: unknown) => string | undefined;
  ready: (parentOrigin: string) => Promise<Omit<FrameReadyMessage, "type">> | Omit<FrameReadyMessage, "type">;
}): void {
  const origins = allowedOrigins();
  window.addEventListener("message", async (event: MessageEvent) => {
    if (event.source !== window.parent || window.parent === window) return;
    if (!isOriginAllowed(origins, event.origin)) return;
    const data = event.data as { type?: string } | null;
    const port = event.ports[0];
    if (data?.type !== FRAME_INIT_MESSAGE || !port) return;
    const parentOrigin = event.origin;
    port.onmessage = async (message: MessageEvent) => {
      const request = message.data as R;
      if (typeof request?.id !== "number") return;
      let response: FrameResponse;
      try {
        response = { id: request.id, result: await options.handle(request, parentOrigin) };
      } catch (error) {
        response = {
          id: request.id,
          error: {
            code: options.codeOf(error) ?? "FRAME_ERROR",
            message: (error as Error).message ?? "frame error",
          },
        };
      }
      port.postMessage(response);
    };
    port.postMessage({
      type: FRAME_READY_MESSAGE,
      ...(await options.ready(parentOrigin)),
    } satisfies FrameReadyMessage);
  });
}
