import type { SignerBase } from "../signer/types";

/** What `disconnect` resolves with. */
export type DisconnectReturnType = undefined;

/**
 * Signs out: forgets the session here and in every tab, and deletes the key holder's keys.
 *
 * @example
 * await disconnect(signer);
 */
export async function disconnect(signer: SignerBase): Promise<DisconnectReturnType> {
  await signer._internal.lifecycle.init();
  signer.sessionManager.clearSession();
  await signer._internal.lifecycle.disconnectLocally(true);
}
