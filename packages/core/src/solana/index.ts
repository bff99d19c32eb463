// `@latchkey/core/solana`: Solana for the signer. @solana/kit is an optional peer dependency: only apps
// that import this entry need it, and it loads on the first send (the main entry never references it).
import type { SolanaConfig, SolanaOptions } from "../types/solana";

export {
  type RegisterSolanaWalletParameters,
  type RegisterSolanaWalletReturnType,
  registerSolanaWallet,
} from "./registerSolanaWallet";
export type {
  LatchkeySolanaWallet,
  LatchkeySolanaWalletFeatures,
  LatchkeySolanaWalletOptions,
} from "./wallet";

/**
 * Solana for `createSigner` (or the provider's `config.solana`): the defaults `sendSolanaTransaction`, the
 * `useSolanaTransaction` hook and the wallet-standard wallet use (`rpcUrl`, the sponsorship `policyId`, the
 * `chain` the wallet announces), and the sending code, loaded on the first send. Needs `@solana/kit`
 * (`npm i @solana/kit`).
 *
 * @example
 * import { createSigner } from "@latchkey/core";
 * import { solana } from "@latchkey/core/solana";
 *
 * const signer = createSigner({
 *   baseUrl: "https://auth.example.com",
 *   apiKey,
 *   solana: solana({ rpcUrl: "https://api.devnet.solana.com", policyId: "sol_transfers" }),
 * });
 */
export function solana(options: SolanaOptions = {}): SolanaConfig {
  return { ...options, load: () => import("./send") };
}
