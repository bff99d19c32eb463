import type { SignerBase } from "../signer/types";
import { LatchkeySolanaWallet, type LatchkeySolanaWalletOptions, registerStandardWallet } from "./wallet";

/** What `registerSolanaWallet` takes: the wallet's chain, RPC and commitment, name and icon. */
export type RegisterSolanaWalletParameters = LatchkeySolanaWalletOptions;
/** Unregisters the wallet (every app drops it) and stops it watching the signer. */
export type RegisterSolanaWalletReturnType = () => void;

/**
 * Makes the user's embedded Solana account a wallet-standard wallet ("Latchkey") on this page, so the
 * Solana wallet adapter, @solana/react and kit's wallet hooks list it beside injected wallets. It serves
 * `standard:connect` / `disconnect` / `events` (a `change` when the user signs in or out) and
 * `solana:signMessage`, `solana:signTransaction`, `solana:signAndSendTransaction` (sent through
 * `rpcUrl` or `SignerOptions.solana.rpcUrl`, confirmed at `confirmed` unless the app asks otherwise).
 * Connecting while signed out rejects with NOT_AUTHENTICATED. Answers the function that unregisters it.
 *
 * @example
 * const unregister = registerSolanaWallet(signer, {
 *   chain: "solana:devnet",
 *   rpcUrl: "https://api.devnet.solana.com",
 * });
 * // later, e.g. when the app unmounts
 * unregister();
 */
export function registerSolanaWallet(
  signer: SignerBase,
  options: RegisterSolanaWalletParameters = {},
): RegisterSolanaWalletReturnType {
  const wallet = new LatchkeySolanaWallet(signer, options);
  const unregister = registerStandardWallet(wallet);
  return () => {
    unregister();
    wallet.destroy();
  };
}
