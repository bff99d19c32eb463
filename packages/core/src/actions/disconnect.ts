import type { SignerBase } from "../signer/types";
import { disconnectExternalWallet } from "./disconnectExternalWallet";

/** What `disconnect` resolves with. */
export type DisconnectReturnType = undefined;

/**
 * Signs out: forgets the session here and in every tab, and deletes the key holder's keys; an external
 * wallet is disconnected too.
 *
 * @example
 * await disconnect(signer);
 */
export async function disconnect(signer: SignerBase): Promise<DisconnectReturnType> {
  await signer._internal.lifecycle.init();
  signer.sessionManager.clearSession();
  await Promise.all([
    signer._internal.lifecycle.disconnectLocally(true),
    disconnectExternalWallet(signer).catch(() => {}),
  ]);
}
