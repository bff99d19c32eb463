import { loadExternalWallets } from "../externalWallets/load";
import type { SignerBase } from "../signer/types";

/**
 * Disconnects the external wallet and forgets its SIWE proof; the recent connector id stays (it orders
 * the list next time), but the page no longer reconnects on load.
 *
 * @example
 * await disconnectExternalWallet(signer);
 */
export async function disconnectExternalWallet(signer: SignerBase): Promise<void> {
  if (
    signer.store.getState().externalWallet.status === "disconnected" &&
    !signer._internal.lazy.externalWallets
  )
    return;
  await (await loadExternalWallets(signer)).disconnect();
}
