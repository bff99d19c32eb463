// @latchkey/core/rainbowkit: the embedded wallet in RainbowKit's wallet list. Nothing of RainbowKit is
// imported (its `Wallet` type is matched structurally), so core does not depend on it.
import { type CreateConnectorFn, createConnector } from "@wagmi/core";
import { LATCHKEY_ICON, LATCHKEY_RDNS } from "./provider/announce";
import { type LatchkeyParameters, latchkey } from "./wagmi";

/** What RainbowKit gives a wallet's `createConnector` (its `WalletDetailsParams`), passed on to wagmi. */
export interface LatchkeyWalletDetails {
  rkDetails: Record<string, unknown>;
}

/** RainbowKit's `Wallet`, the fields this wallet sets. */
export interface LatchkeyRainbowWallet {
  id: string;
  name: string;
  rdns: string;
  iconUrl: string;
  iconBackground: string;
  installed: boolean;
  createConnector: (walletDetails: LatchkeyWalletDetails) => CreateConnectorFn;
}

/**
 * The Latchkey wallet for RainbowKit's `connectorsForWallets`: picking it runs the `latchkey()` wagmi
 * connector: connecting while signed out opens the modal of the `<LatchkeyProvider signer={signer}>` holding
 * the same signer (or awaits `requestAccounts`). Takes what `latchkey()` takes.
 *
 * @example
 * import { connectorsForWallets } from "@rainbow-me/rainbowkit";
 * import { latchkeyWallet } from "@latchkey/core/rainbowkit";
 * const connectors = connectorsForWallets(
 *   [{ groupName: "Recommended", wallets: [latchkeyWallet({ signer })] }],
 *   { appName: "My app", projectId: "unused" },
 * );
 * const config = createConfig({ chains: [base], connectors, transports: { [base.id]: http() } });
 */
export function latchkeyWallet(parameters: LatchkeyParameters): () => LatchkeyRainbowWallet {
  return () => ({
    id: "latchkey",
    name: "Latchkey",
    rdns: LATCHKEY_RDNS,
    iconUrl: LATCHKEY_ICON,
    iconBackground: "#ffffff",
    installed: true,
    createConnector: (walletDetails) => {
      const connector = latchkey(parameters);
      return createConnector((config) => ({ ...connector(config), ...walletDetails }));
    },
  });
}
