import { numberToHex } from "viem";
import { ProviderRpcError, ProviderRpcErrorCode } from "../errors";
import type { MethodHandler, ProviderContext } from "../types";
import { asChainId, asObject } from "./params";

const isConfigured = (ctx: ProviderContext, chainId: number) =>
  ctx.chains().some((c) => c.chain.id === chainId);

/** `eth_chainId`: the current chain, hex (4900 when no chain is configured). */
export const ethChainId: MethodHandler = async (ctx) => numberToHex(ctx.chain().chain.id);

/** `net_version`: the current chain id in decimal. */
export const netVersion: MethodHandler = async (ctx) => String(ctx.chain().chain.id);

/**
 * `wallet_switchEthereumChain` (EIP-3326): moves to a configured chain (`chainChanged` fires); 4902
 * for a chain that is not configured.
 */
export const walletSwitchEthereumChain: MethodHandler = async (ctx, [param]) => {
  const chainId = asChainId(asObject(param, "the switch parameter").chainId);
  if (!isConfigured(ctx, chainId)) {
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNRECOGNIZED_CHAIN,
      `Unrecognized chain ID ${numberToHex(chainId)}: the Latchkey wallet only switches among the chains configured in createSigner's chains`,
    );
  }
  ctx.setChainId(chainId);
  return null;
};

/**
 * `wallet_addEthereumChain` (EIP-3085): null for a configured chain; 4902 otherwise, since a smart
 * account's chain also needs an ERC-4337 bundler, which EIP-3085's parameters cannot carry.
 */
export const walletAddEthereumChain: MethodHandler = async (ctx, [param]) => {
  const chainId = asChainId(asObject(param, "the chain parameter").chainId);
  if (!isConfigured(ctx, chainId)) {
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNRECOGNIZED_CHAIN,
      `Chain ${numberToHex(chainId)} cannot be added: a smart account's chain needs an ERC-4337 bundler, which wallet_addEthereumChain's parameters do not carry; configure it in createSigner's chains ({ chain, rpcUrl, bundlerUrl })`,
    );
  }
  return null;
};
