import type { SignerOptions } from "./types";

/**
 * The settings `createSigner` can check on its own, checked when the signer is made: a smart-account chain
 * with no RPC URL or no bundler would otherwise fail at the first user operation, far from its cause, with
 * viem's "No URL was provided to the Transport".
 */
export function checkSignerOptions(options: SignerOptions): void {
  options.chains?.forEach(({ chain, rpcUrl, bundlerUrl }, i) => {
    if (!chain || typeof chain.id !== "number") {
      throw new TypeError(
        `createSigner(): chains[${i}].chain must be a viem chain, e.g. base from viem/chains`,
      );
    }
    const named = `chains[${i}] (chain ${chain.id}${chain.name ? ` ${chain.name}` : ""})`;
    if (!rpcUrl && !chain.rpcUrls?.default?.http?.[0]) {
      throw new TypeError(
        `createSigner(): ${named} has no RPC URL: set chains[${i}].rpcUrl, or use a chain whose rpcUrls.default has one`,
      );
    }
    if (!bundlerUrl) {
      throw new TypeError(
        `createSigner(): ${named} has no bundlerUrl: smart-account chains need an ERC-4337 bundler (EntryPoint v0.8); leave the chain out of chains for the plain wallet`,
      );
    }
  });
}
