import type { EIP1193Provider } from "viem";

import { markOwnProvider } from "../externalWallets/discovery";

/** EIP-6963's description of a wallet: a per-session UUID, its name, a square icon (data URI), its rdns. */
export interface Eip6963ProviderInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

/** Where EIP-6963 events go: a `window`, or any EventTarget standing in for one. */
export type Eip6963Window = Pick<EventTarget, "addEventListener" | "removeEventListener" | "dispatchEvent">;

/** What `announceEip1193Provider` takes besides the provider. */
export interface AnnounceEip1193ProviderOptions {
  /** The window to announce on: `window` by default; none (nothing is announced) outside a browser. */
  window?: Eip6963Window | null;
  /** Overrides of the announced info (a fresh UUID, "Latchkey", its icon and "dev.latchkey" by default). */
  info?: Partial<Eip6963ProviderInfo>;
}

/** Latchkey's keyhole, 96×96 SVG as a data URI (EIP-6963 asks for a square image of at least 96 px). */
export const LATCHKEY_ICON =
  "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20width='96'%20height='96'%20viewBox='0%200%2096%2096'%3E%3Crect%20width='96'%20height='96'%20rx='22'%20fill='%23111827'/%3E%3Ccircle%20cx='48'%20cy='40'%20r='15'%20fill='%23fbbf24'/%3E%3Cpath%20d='M41%2047h14l5%2029H36z'%20fill='%23fbbf24'/%3E%3C/svg%3E";

/** The reverse-DNS name the wallet is announced and matched under (wagmi dedupes connectors by it). */
export const LATCHKEY_RDNS = "dev.latchkey";

/** A version-4 UUID (crypto.randomUUID needs a secure context: built from random bytes otherwise). */
function uuidV4(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") {
    try {
      return c.randomUUID();
    } catch {
      // not a secure context
    }
  }
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Announces an EIP-1193 provider by EIP-6963 (multi-injected provider discovery) so wagmi, RainbowKit
 * and other dapps list it: dispatches `eip6963:announceProvider` once now and again on every
 * `eip6963:requestProvider`, with `{ info: { uuid, name: "Latchkey", icon, rdns: "dev.latchkey" },
 * provider }` (frozen). Answers a function that stops answering requests. Outside a browser (no
 * `window`), nothing is announced.
 *
 * @example
 * const provider = createEip1193Provider(signer);
 * const stop = announceEip1193Provider(provider);
 * // later: stop();
 */
export function announceEip1193Provider(
  provider: EIP1193Provider,
  options: AnnounceEip1193ProviderOptions = {},
): () => void {
  const target =
    options.window === undefined ? (globalThis as { window?: Eip6963Window }).window : options.window;
  if (!target) return () => {};
  const info: Eip6963ProviderInfo = Object.freeze({
    uuid: options.info?.uuid ?? uuidV4(),
    name: options.info?.name ?? "Latchkey",
    icon: options.info?.icon ?? LATCHKEY_ICON,
    rdns: options.info?.rdns ?? LATCHKEY_RDNS,
  });
  // The embedded wallet is not an external wallet to sign in with: the modal's wallet list skips it.
  markOwnProvider(provider);
  const detail = Object.freeze({ info, provider });
  const announce = () => {
    target.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
  };
  target.addEventListener("eip6963:requestProvider", announce);
  announce();
  return () => target.removeEventListener("eip6963:requestProvider", announce);
}
