import { walletDiscovery } from "../externalWallets/discovery";
import type { SignerBase } from "../signer/types";
import type { WalletConnectorInfo } from "../types/externalWallets";

/** The wallets the user can pick. */
export type GetWalletConnectorsReturnType = WalletConnectorInfo[];

const WALLET_CONNECT: WalletConnectorInfo = {
  id: "walletConnect",
  name: "WalletConnect",
  type: "walletConnect",
};

/**
 * The wallets the user can pick (spec §2 `pick_eoa`): every wallet the page announced (EIP-6963, by
 * rdns), then WalletConnect when `externalWallets.walletConnect` is configured. Reads the announcements
 * only: no wallet code is loaded. Empty outside a browser.
 *
 * @example
 * const wallets = getWalletConnectors(signer); // [{ id: "io.metamask", name: "MetaMask", icon, type: "injected" }]
 */
export function getWalletConnectors(signer: SignerBase): GetWalletConnectorsReturnType {
  const win = signer._internal.window as Parameters<typeof walletDiscovery>[0] | null;
  const injected: WalletConnectorInfo[] = win
    ? walletDiscovery(win)
        .wallets()
        .map(({ info }) => ({ id: info.rdns, name: info.name, icon: info.icon, type: "injected" }))
    : [];
  return signer._internal.options.externalWallets?.walletConnect ? [...injected, WALLET_CONNECT] : injected;
}
