// Types only, imported by signer/types.ts: nothing here may import the signer (no cycles).

/** A Solana cluster as wallet-standard names it. */
export type SolanaChain = "solana:mainnet" | "solana:devnet" | "solana:testnet" | "solana:localnet";

/** The signer's Solana defaults: where to send, which sponsorship policy, which cluster the wallet serves. */
export interface SolanaOptions {
  /** The Solana JSON-RPC URL `sendSolanaTransaction` and the wallet send through. */
  rpcUrl?: string;
  /** The service's Solana sponsorship policy: with it, sends are sponsored unless `sponsored: false`. */
  policyId?: string;
  /** The cluster the wallet-standard wallet announces (`solana:mainnet` by default). */
  chain?: SolanaChain;
}
