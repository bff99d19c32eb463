import { loadWalletsConfig } from "../externalWallets/load";
import type { SiweSession } from "../externalWallets/types";
import type { SignerBase } from "../signer/types";

/**
 * Proves the connected external wallet's address to the service again (EIP-4361): after the user changed
 * accounts in the wallet, or with `externalWallets.siwe` off at connect time. Answers the service's token
 * and keeps it in the state (`externalWallet.siwe`).
 *
 * @example
 * const { token } = await signInWithEthereum(signer); // send it to your backend
 */
export async function signInWithEthereum(signer: SignerBase): Promise<SiweSession> {
  const [config, verb] = await Promise.all([
    loadWalletsConfig(signer),
    import("../externalWallets/actions/signInWithEthereum"),
  ]);
  return verb.signInWithEthereum(config);
}
