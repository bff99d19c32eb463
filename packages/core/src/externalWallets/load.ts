import type { SignerBase } from "../signer/types";
import type { WalletsConfig } from "./types";

/**
 * The signer's external-wallets config, loaded (wagmi, connectors) on first use and made once; each
 * verb in `actions/` is loaded by the action that runs it.
 */
export function loadWalletsConfig(signer: SignerBase): Promise<WalletsConfig> {
  const lazy = signer._internal.lazy;
  if (!lazy.externalWallets) {
    const loading = import("./config").then((m) => m.createWalletsConfig(signer));
    loading.catch(() => {
      if (lazy.externalWallets === loading) lazy.externalWallets = undefined;
    });
    lazy.externalWallets = loading;
  }
  return lazy.externalWallets;
}
