// Loaded on first use, through `externalWallets()` (index.ts, the `@latchkey/core/external-wallets`
// entry): wagmi's store and the connectors stay out of an app's initial JavaScript, and out of the main
// entry altogether. Each verb in actions/ loads on its first call.
import type { SignerBase } from "../signer/types";
import type { ExternalWalletsEngine } from "../types/externalWallets";
import { createWalletsConfig } from "./config";
import type { ExternalWalletsParameters } from "./types";

/**
 * The external wallets of one signer: the one config (wagmi's, mirrored into the signer's store) and the
 * verbs over it. WalletConnect's connector is loaded first when it is configured: wagmi's config takes
 * its connectors when it is made.
 */
export async function createExternalWalletsEngine(
  signer: SignerBase,
  parameters: ExternalWalletsParameters,
): Promise<ExternalWalletsEngine> {
  const walletConnect = parameters.walletConnect?.projectId
    ? await parameters.walletConnect.loadConnector()
    : undefined;
  const config = createWalletsConfig(signer, parameters, walletConnect);
  return {
    connect: async (params) =>
      (await import("./actions/connectExternalWallet")).connectExternalWallet(config, params),
    reconnect: async () =>
      (await import("./actions/reconnectExternalWallet")).reconnectExternalWallet(config),
    disconnect: async () =>
      (await import("./actions/disconnectExternalWallet")).disconnectExternalWallet(config),
    switchChain: async (chainId) =>
      (await import("./actions/switchExternalWalletChain")).switchExternalWalletChain(config, chainId),
    signInWithEthereum: async () => (await import("./actions/signInWithEthereum")).signInWithEthereum(config),
    sendTransaction: async (params) =>
      (await import("./actions/sendExternalTransaction")).sendExternalTransaction(config, params),
  };
}
