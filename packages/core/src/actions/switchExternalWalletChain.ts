import type { ExternalWalletError } from "../errors/externalWallet";
import { loadExternalWallets } from "../externalWallets/load";
import type { SignerBase } from "../signer/types";

/** What `switchExternalWalletChain` takes: a configured chain's id. */
export interface SwitchExternalWalletChainParameters {
  chainId: number;
}
/** The errors `switchExternalWalletChain` may throw (discriminate on `code`). */
export type SwitchExternalWalletChainErrorType = ExternalWalletError;

/**
 * Moves the external wallet to another configured chain (spec §7 "Wallet side calls"):
 * `wallet_switchEthereumChain`, and `wallet_addEthereumChain` first when the wallet does not know it.
 * CHAIN_NOT_CONFIGURED for a chain the app did not configure, SWITCH_CHAIN_NOT_SUPPORTED for a wallet that
 * cannot switch, USER_REJECTED when the user refuses. Answers the chain id now in use.
 *
 * @example
 * await switchExternalWalletChain(signer, { chainId: base.id });
 */
export async function switchExternalWalletChain(
  signer: SignerBase,
  { chainId }: SwitchExternalWalletChainParameters,
): Promise<number> {
  return (await loadExternalWallets(signer)).switchChain(chainId);
}
