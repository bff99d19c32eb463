import { loadExternalWallets } from "../externalWallets/load";
import type { SignerBase } from "../signer/types";
import type { SiweSession } from "../types/externalWallets";

/**
 * Proves the connected external wallet's address to the service again (EIP-4361): after the user changed
 * accounts in the wallet, or with `externalWallets.siwe` off at connect time. Answers the service's token
 * and keeps it in the state (`externalWallet.siwe`).
 *
 * @example
 * const { token } = await signInWithEthereum(signer); // send it to your backend
 */
export async function signInWithEthereum(signer: SignerBase): Promise<SiweSession> {
  return (await loadExternalWallets(signer)).signInWithEthereum();
}
