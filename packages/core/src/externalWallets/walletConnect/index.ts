// `@latchkey/core/walletconnect`: WalletConnect v2 for the external wallets. @walletconnect/universal-provider
// and @wagmi/core are optional peer dependencies: only apps that import this entry need them. The connector
// loads with the wallet code, WalletConnect's client only when the user picks WalletConnect.
import type { WalletConnectOptions } from "../../types/externalWallets";
import type { WalletConnectConfig } from "../types";

export type { WalletConnectConfig } from "../types";

/**
 * WalletConnect for `externalWallets({ walletConnect })`: the app's project id and, for a self-hosted or
 * local relay, its URL. The modal draws the QR code from the pairing URI (no AppKit). Needs
 * `@walletconnect/universal-provider` and `@wagmi/core` (`npm i @walletconnect/universal-provider @wagmi/core`).
 *
 * @example
 * import { externalWallets } from "@latchkey/core/external-wallets";
 * import { walletConnect } from "@latchkey/core/walletconnect";
 *
 * const wallets = externalWallets({ walletConnect: walletConnect({ projectId: "<your project id>" }) });
 */
export function walletConnect(options: WalletConnectOptions): WalletConnectConfig {
  return { ...options, loadConnector: () => import("./connector").then((m) => m.latchkeyWalletConnect) };
}
