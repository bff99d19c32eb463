import { getAccount, switchChain } from "@wagmi/core";
import { ExternalWalletError } from "../../errors/externalWallet";
import { requireWagmi } from "../config";
import { toExternalWalletError } from "../toExternalWalletError";
import type { WalletsConfig } from "../types";

/**
 * Moves the connected wallet to a configured chain (adding it to the wallet with its RPC URL when the
 * wallet does not know it) and answers the chain now in use.
 */
export async function switchExternalWalletChain(config: WalletsConfig, chainId: number): Promise<number> {
  const wagmi = requireWagmi(config);
  if (!wagmi.chains.some((c) => c.id === chainId)) throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
  if (getAccount(wagmi).status !== "connected") throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
  try {
    const chain = await switchChain(wagmi, {
      chainId,
      addEthereumChainParameter: { rpcUrls: [config.rpcUrls[chainId] as string] },
    });
    return chain.id;
  } catch (error) {
    throw toExternalWalletError(error);
  }
}
