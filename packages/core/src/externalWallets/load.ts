import type { SignerBase } from "../signer/types";
import { hasStoredConnection, readRecentConnectorId } from "./storage";
import type { ExternalWalletsRuntime } from "./types";

/** The signer's external-wallet runtime, loaded (wagmi, connectors) on first use and made once. */
export function loadExternalWallets(signer: SignerBase): Promise<ExternalWalletsRuntime> {
  const lazy = signer._internal.lazy;
  if (!lazy.externalWallets) {
    const loading = import("./runtime").then((m) => m.createExternalWalletsRuntime(signer));
    loading.catch(() => {
      if (lazy.externalWallets === loading) lazy.externalWallets = undefined;
    });
    lazy.externalWallets = loading;
  }
  return lazy.externalWallets;
}

/**
 * Reconnects the most recent wallet on load (spec §9), only when this browser has one: the cookie of the
 * recent connector and a stored connection. Other pages never load the wallet code.
 */
export function restoreExternalWallet(signer: SignerBase): Promise<void> {
  if (!readRecentConnectorId() || !hasStoredConnection()) return Promise.resolve();
  return loadExternalWallets(signer).then((runtime) => runtime.reconnect());
}
