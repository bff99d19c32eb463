import { ExternalWalletError } from "../errors/externalWallet";
import type { SignerBase } from "../signer/types";
import type { ExternalWalletsEngine } from "../types/externalWallets";

/**
 * The signer's external wallets, loaded (wagmi, the connectors) on first use and made once, through the
 * loader `externalWallets()` of `@latchkey/core/external-wallets` put in the options: this entry never
 * names wagmi, so an app that does not use external wallets needs none of it installed.
 */
export function loadExternalWallets(signer: SignerBase): Promise<ExternalWalletsEngine> {
  const lazy = signer._internal.lazy;
  if (!lazy.externalWallets) {
    const configured = signer._internal.options.externalWallets;
    if (typeof configured?.load !== "function")
      return Promise.reject(
        new ExternalWalletError("EXTERNAL_WALLETS_NOT_CONFIGURED", {
          details: configured
            ? "externalWallets must be made by externalWallets() of @latchkey/core/external-wallets"
            : undefined,
        }),
      );
    const loading = configured.load(signer);
    loading.catch(() => {
      if (lazy.externalWallets === loading) lazy.externalWallets = undefined;
    });
    lazy.externalWallets = loading;
  }
  return lazy.externalWallets;
}
