// `@latchkey/core/external-wallets`: external wallets (EOA) for the signer, over wagmi's connectors.
// @wagmi/core is an optional peer dependency: only apps that import this entry need it, and it loads when
// a wallet is first used (the main entry never references it).
import type { ExternalWalletsConfig } from "../signer/types";
import type { ExternalWalletsParameters } from "./types";

export type { ExternalWalletsParameters } from "./types";

/**
 * External wallets for `createSigner` (or the provider's `config.externalWallets`): the wallets the page
 * announces (EIP-6963), and WalletConnect with `walletConnect({ projectId })` of
 * `@latchkey/core/walletconnect`; users connect them from the modal's `external_wallets` section or with
 * `connectExternalWallet`. Needs `@wagmi/core` (`npm i @wagmi/core`), loaded when a wallet is first used.
 *
 * @example
 * import { createSigner } from "@latchkey/core";
 * import { externalWallets } from "@latchkey/core/external-wallets";
 * import { walletConnect } from "@latchkey/core/walletconnect";
 *
 * const signer = createSigner({
 *   baseUrl: "https://auth.example.com",
 *   apiKey,
 *   externalWallets: externalWallets({
 *     chains: [{ chain: base }],
 *     walletConnect: walletConnect({ projectId: "<your WalletConnect project id>" }),
 *   }),
 * });
 */
export function externalWallets(parameters: ExternalWalletsParameters = {}): ExternalWalletsConfig {
  return {
    ...parameters,
    load: (signer) => import("./engine").then((m) => m.createExternalWalletsEngine(signer, parameters)),
  };
}
