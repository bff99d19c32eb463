/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_LATCHKEY_URL?: string;
  readonly VITE_LATCHKEY_API_KEY?: string;
  readonly VITE_LATCHKEY_MAILBOX?: string;
  /** JSON {chainId, rpcUrl, bundlerUrl, counter, policyId?}: the dev chain `npm start` runs. */
  readonly VITE_LATCHKEY_CHAIN?: string;
  /** JSON {chains: [{chainId, rpcUrl, name?}], walletConnect?: {projectId, relayUrl?}}: external wallets. */
  readonly VITE_LATCHKEY_WALLETS?: string;
  /** JSON {rpcUrl, policyId?, feePayer?}: the local Solana node and the service's Solana sponsorship. */
  readonly VITE_LATCHKEY_SOLANA?: string;
}
