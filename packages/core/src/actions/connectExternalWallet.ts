import type { ExternalWalletError } from "../errors/externalWallet";
import { loadExternalWallets } from "../externalWallets/load";
import type { SignerBase } from "../signer/types";
import type { ConnectParams, ConnectResult } from "../types/externalWallets";

/** What `connectExternalWallet` takes: the wallet, optionally a chain, an abort signal, a URI callback. */
export type ConnectExternalWalletParameters = ConnectParams;
/** The connected account and chain, the wallet, and the SIWE proof when it is on. */
export type ConnectExternalWalletReturnType = ConnectResult;
/** The errors `connectExternalWallet` may throw (discriminate on `code`). */
export type ConnectExternalWalletErrorType = ExternalWalletError;

/**
 * Connects an external wallet (spec §4 "External wallet"): the state goes connecting → connected (or
 * back on failure), the most recent connector id is kept in a cookie for 400 days, the wallet is moved
 * to a configured chain, and the user signs a Sign-In with Ethereum message the service verifies (unless
 * `externalWallets.siwe` is false). Loads the connectors on first use (EXTERNAL_WALLETS_NOT_CONFIGURED without `externalWallets()` in
 * the options); WalletConnect only when chosen,
 * with its pairing URI passed to `onDisplayUri` for a QR code.
 *
 * @example
 * const { address, siwe } = await connectExternalWallet(signer, { connectorId: "io.metamask" });
 */
export async function connectExternalWallet(
  signer: SignerBase,
  params: ConnectExternalWalletParameters,
): Promise<ConnectExternalWalletReturnType> {
  return (await loadExternalWallets(signer)).connect(params);
}
