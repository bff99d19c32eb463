import { createIframeKeyHolder } from "./iframe";
import { lazyMemoryKeyHolder } from "./lazyMemory";
import type { KeyHolder } from "./types";

/**
 * The key holder a signer gets when the app passes none: the service's auth iframe in a browser (keys
 * stay on the service's origin), memory elsewhere (Node, SSR; loaded on first use).
 */
export function defaultKeyHolder(
  options: { baseUrl: string; appId?: string; iframeContainer?: HTMLElement; iframeId?: string },
  win: unknown,
): KeyHolder {
  if (!win) return lazyMemoryKeyHolder();
  const frameUrl = new URL(`${options.baseUrl.replace(/\/+$/, "")}/frames/auth`);
  if (options.appId) frameUrl.searchParams.set("appId", options.appId);
  return createIframeKeyHolder({
    frameUrl: frameUrl.toString(),
    ...(options.iframeContainer ? { container: options.iframeContainer } : {}),
    ...(options.iframeId ? { iframeId: options.iframeId } : {}),
  });
}
