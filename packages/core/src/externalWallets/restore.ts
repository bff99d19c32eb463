import type { ReturnHandler, SignerBase } from "../signer/types";
import { loadExternalWallets } from "./load";
import { hasStoredConnection, readRecentConnectorId } from "./storage";

/**
 * Reconnects the most recent wallet on load (spec §9), only when this browser has one: the cookie of the
 * recent connector and a stored connection. Other pages never load the wallet code.
 */
export async function restoreExternalWallet(signer: SignerBase): Promise<void> {
  if (!readRecentConnectorId() || !hasStoredConnection()) return;
  await (await loadExternalWallets(signer)).reconnect();
}

/**
 * The external wallet's part of `init()`, registered beside the auth methods' return handlers: after
 * the stored session is read, the wallet of last time reconnects when external wallets are configured
 * and there is a page. Not awaited: a wallet that is slow to answer must not hold up the embedded session.
 */
export const externalWalletRestore: ReturnHandler = {
  name: "externalWalletRestore",
  phase: "afterSession",
  handle(signer) {
    if (signer._internal.options.externalWallets && signer._internal.window)
      void restoreExternalWallet(signer).catch(() => {});
  },
};
