import type { ExternalWalletError } from "../errors/externalWallet";
import { loadWalletsConfig } from "../externalWallets/load";
import type { ConnectParams, ConnectResult } from "../externalWallets/types";
import type { SignerBase } from "../signer/types";

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
 * `externalWallets.siwe` is false). Loads the connectors on first use; WalletConnect only when chosen,
 * with its pairing URI passed to `onDisplayUri` for a QR code.
 *
 * @example
 * const { address, siwe } = await connectExternalWallet(signer, { connectorId: "io.metamask" });
 */
export async function connectExternalWallet(
  signer: SignerBase,
  params: ConnectExternalWalletParameters,
): Promise<ConnectExternalWalletReturnType> {
  const [config, verb] = await Promise.all([
    loadWalletsConfig(signer),
    import("../externalWallets/actions/connectExternalWallet"),
  ]);
  return verb.connectExternalWallet(config, params);
}
