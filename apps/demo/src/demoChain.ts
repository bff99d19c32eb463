import type { SmartAccountChainConfig } from "@latchkey/core";
import { type Address, defineChain } from "viem";

/** The dev chain `npm start` runs (hardhat + EntryPoint v0.8 + alto + the service's paymaster), from Vite's env. */
export interface DemoChain {
  config: SmartAccountChainConfig;
  /** The Counter contract the dev stack deployed. */
  counter: Address;
}

interface DemoChainEnv {
  chainId: number;
  rpcUrl: string;
  bundlerUrl: string;
  counter: Address;
  policyId?: string;
}

/** `VITE_LATCHKEY_CHAIN` (JSON) as a chain config, or null when the demo runs without a chain. */
export function readDemoChain(raw: string | undefined): DemoChain | null {
  if (!raw) return null;
  const env = JSON.parse(raw) as DemoChainEnv;
  const chain = defineChain({
    id: env.chainId,
    name: "Latchkey dev chain",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [env.rpcUrl] } },
  });
  return {
    config: {
      chain,
      rpcUrl: env.rpcUrl,
      bundlerUrl: env.bundlerUrl,
      pollingInterval: 250,
      ...(env.policyId ? { policyId: env.policyId } : {}),
    },
    counter: env.counter,
  };
}
