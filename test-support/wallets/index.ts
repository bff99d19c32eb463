// Test wallets and the WalletConnect relay they meet dapps through (dev/test only). See WALLETS-AND-CHAINS.md.
export {
  createBehaviour,
  ProviderError,
  type ProviderErrorShape,
  USER_REJECTED,
  type WalletBehaviour,
} from "./behaviour.js";
export type { WalletChain } from "./evm.js";
export {
  type InjectedWallet,
  type InjectedWalletChain,
  type InjectedWalletOptions,
  installInjectedWallet,
  type WalletCall,
  type WalletInfo,
} from "./injectedWallet.js";
export {
  startWalletConnectRelay,
  type WalletConnectRelay,
  type WalletConnectRelayOptions,
} from "./relay.js";
export { universalProviderModule, walletKitModules } from "./walletConnectModules.js";
export {
  type ClosableCore,
  closeWalletConnectCore,
  startWalletConnectWallet,
  WALLETCONNECT_METHODS,
  type WalletConnectRequest,
  type WalletConnectWallet,
  type WalletConnectWalletOptions,
} from "./walletConnectWallet.js";
