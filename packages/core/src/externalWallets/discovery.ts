import type { AnnouncedWallet } from "../types/externalWallets";

interface DiscoveryWindow {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
  dispatchEvent(event: Event): boolean;
}

/** The wallets a page announced (EIP-6963), by rdns, kept up to date; shared by the signers of a window. */
export interface WalletDiscovery {
  wallets(): readonly AnnouncedWallet[];
  subscribe(listener: (wallets: readonly AnnouncedWallet[]) => void): () => void;
}

const discoveries = new WeakMap<object, WalletDiscovery>();
/** Providers this package announces itself (the embedded wallet): never offered as an external wallet. */
const ownProviders = new WeakSet<object>();

/** Marks a provider announced by this package (`announceEip1193Provider`), so the wallet list skips it. */
export function markOwnProvider(provider: object): void {
  ownProviders.add(provider);
}

/**
 * Listens for `eip6963:announceProvider` and asks once with `eip6963:requestProvider` (EIP-6963). Tiny and
 * free of wagmi, so the wallet list shows before the connector code loads. A wallet announced twice (a
 * page reload of the extension) replaces its first announcement.
 */
export function walletDiscovery(win: DiscoveryWindow): WalletDiscovery {
  const known = discoveries.get(win);
  if (known) return known;
  let list: AnnouncedWallet[] = [];
  const listeners = new Set<(wallets: readonly AnnouncedWallet[]) => void>();
  win.addEventListener("eip6963:announceProvider", (event) => {
    const detail = (event as CustomEvent<AnnouncedWallet>).detail;
    if (!detail?.info?.rdns || typeof detail.provider?.request !== "function") return;
    if (ownProviders.has(detail.provider)) return;
    list = [...list.filter((w) => w.info.rdns !== detail.info.rdns), detail];
    for (const listener of [...listeners]) listener(list);
  });
  win.dispatchEvent(new Event("eip6963:requestProvider"));
  const discovery: WalletDiscovery = {
    wallets: () => list,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  discoveries.set(win, discovery);
  return discovery;
}
