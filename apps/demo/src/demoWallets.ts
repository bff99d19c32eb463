import type { ExternalWalletsConfig } from "@latchkey/core";
import { externalWallets } from "@latchkey/core/external-wallets";
import { walletConnect } from "@latchkey/core/walletconnect";
import { defineChain } from "viem";

interface DemoWalletsEnv {
  chains: { chainId: number; rpcUrl: string; name?: string }[];
  walletConnect?: { projectId: string; relayUrl?: string };
}

/**
 * `VITE_LATCHKEY_WALLETS` (JSON): the chains an external wallet may use and WalletConnect (`npm start` runs
 * a local relay), as the provider's `externalWallets`; null when unset.
 */
export function readDemoWallets(raw: string | undefined): ExternalWalletsConfig | null {
  if (!raw) return null;
  const env = JSON.parse(raw) as DemoWalletsEnv;
  const local = env.walletConnect?.relayUrl?.startsWith("ws://127.0.0.1");
  if (local) {
    // A local relay has no WalletConnect Verify service behind it: WalletConnect's own test switch skips
    // the attestation call (verify.walletconnect.org, 5 s per request without a network). Dev only.
    const g = globalThis as { process?: { env: Record<string, string> }; global?: unknown };
    g.process ??= { env: {} };
    g.process.env.IS_VITEST = "true";
    g.global ??= globalThis;
  }
  return externalWallets({
    chains: env.chains.map(({ chainId, rpcUrl, name }) => ({
      chain: defineChain({
        id: chainId,
        name: name ?? `Local chain ${chainId}`,
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      }),
      rpcUrl,
    })),
    ...(env.walletConnect ? { walletConnect: walletConnect(env.walletConnect) } : {}),
  });
}
