import type { Page } from "playwright-core";

// What the host page of a service frame (export, import) can see: its message listeners, its DOM and its
// storage. The export and import tests check that a wallet's secret never reaches any of them.

/**
 * Runs in the host page only (not in its frames): keeps every message event's data, what the page's
 * MessagePorts receive, and every text and attribute the DOM is given, for the test to read later.
 */
export function instrumentHostPage() {
  if (window.top !== window) return;
  const seen: string[] = [];
  (window as unknown as { __seen: string[] }).__seen = seen;
  // Each entry is "message\t…" (what a listener got) or "dom\t…" (what the DOM was given).
  const record = (value: unknown, kind = "dom") => {
    try {
      seen.push(`${kind}\t${typeof value === "string" ? value : String(JSON.stringify(value))}`);
    } catch {
      seen.push(`${kind}\t${String(value)}`);
    }
  };
  window.addEventListener("message", (event) => record(event.data, "message"), true);
  // Answers on a MessageChannel (the frames' channels) come through the port, not the window.
  const descriptor = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  Object.defineProperty(MessagePort.prototype, "onmessage", {
    configurable: true,
    get() {
      return descriptor?.get?.call(this);
    },
    set(handler: ((event: MessageEvent) => void) | null) {
      descriptor?.set?.call(
        this,
        handler
          ? (event: MessageEvent) => {
              record(event.data, "message");
              handler.call(this, event);
            }
          : null,
      );
    },
  });
  const addListener = MessagePort.prototype.addEventListener;
  MessagePort.prototype.addEventListener = function (
    this: MessagePort,
    type: string,
    listener: EventListener,
    options?: unknown,
  ) {
    if (type === "message")
      addListener.call(
        this,
        type,
        (event) => record((event as MessageEvent).data, "message"),
        options as boolean,
      );
    return addListener.call(this, type, listener, options as boolean);
  } as typeof addListener;
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      if (m.type === "attributes" && m.target instanceof Element)
        record(m.target.getAttribute(m.attributeName ?? "") ?? "");
      else if (m.type === "characterData") record(m.target.textContent ?? "");
      for (const node of Array.from(m.addedNodes)) {
        record(node.textContent ?? "");
        if (node instanceof Element) record(node.outerHTML);
      }
    }
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/**
 * Everything the host page can read afterwards: what it saw, its DOM, localStorage, sessionStorage,
 * IndexedDB; and "READABLE-FRAME" if the service's frame `frameId` (on another origin) were readable.
 */
export async function hostPageContents(page: Page, frameId = "latchkey-export-iframe"): Promise<string> {
  return page.evaluate(async (frameId) => {
    const parts: string[] = [...(window as unknown as { __seen: string[] }).__seen];
    parts.push(document.documentElement.outerHTML);
    for (const storage of [localStorage, sessionStorage])
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i) ?? "";
        parts.push(key, storage.getItem(key) ?? "");
      }
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name ?? "");
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const name of Array.from(db.objectStoreNames)) {
        const values = await new Promise<unknown[]>((resolve) => {
          const req = db.transaction(name).objectStore(name).getAll();
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => resolve([]);
        });
        for (const v of values) {
          try {
            parts.push(JSON.stringify(v));
          } catch {
            parts.push(String(v));
          }
        }
      }
      db.close();
    }
    // The frame is on the service's origin: its document is not this page's to read.
    const frame = document.getElementById(frameId) as HTMLIFrameElement | null;
    parts.push(frame?.contentDocument ? "READABLE-FRAME" : "");
    return parts.join("\n");
  }, frameId);
}
