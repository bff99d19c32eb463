import { ErrorCode } from "@latchkey/protocol";
import { type Chain, createPublicClient, defineChain, http, type PublicClient, type Transport } from "viem";
import { type BundlerClient, createBundlerClient } from "viem/account-abstraction";
import type { ConfiguredChain, ServiceContext } from "../../../context";
import { apiError } from "../../../errors";

/** A configured chain the service can send user operations on: its node, and its bundler. */
export interface SendingChain {
  settings: ConfiguredChain & { bundlerUrl: string };
  publicClient: PublicClient<Transport, Chain>;
  bundler: BundlerClient;
}

/**
 * The node and bundler clients of chain `chainId` from the service's `chains` (with `bundlerUrl`); 400
 * CHAIN_NOT_SUPPORTED when the chain is not configured or has no bundler: the caller's mistake, which
 * no retry mends (a configured chain whose node or bundler does not answer is still 503).
 */
export function sendingChain(ctx: Pick<ServiceContext, "chains">, chainId: number): SendingChain {
  const settings = ctx.chains.get(chainId);
  if (!settings?.bundlerUrl)
    throw apiError(
      ErrorCode.CHAIN_NOT_SUPPORTED,
      `This service sends no user operations on chain ${chainId}: it needs the chain with a bundlerUrl in its chains`,
    );
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [settings.rpcUrl] } },
  });
  const publicClient = createPublicClient({
    chain,
    transport: http(settings.rpcUrl, { retryCount: 1, timeout: 10_000 }),
    pollingInterval: 250,
  });
  const bundler = createBundlerClient({
    chain,
    client: publicClient,
    transport: http(settings.bundlerUrl, { retryCount: 0, timeout: 20_000 }),
    pollingInterval: 250,
  });
  return { settings: settings as SendingChain["settings"], publicClient, bundler };
}
