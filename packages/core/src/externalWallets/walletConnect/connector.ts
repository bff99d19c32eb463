// Loaded with the connectors (through `walletConnect()`, index.ts), and WalletConnect's client only when the user
// picks WalletConnect: it is the heaviest part of the wallet sign-in.
import { ChainNotConfiguredError, createConnector, SwitchChainNotSupportedError } from "@wagmi/core";
import type UniversalProvider from "@walletconnect/universal-provider";
import { type Address, getAddress, numberToHex, UserRejectedRequestError } from "viem";
import { ExternalWalletError } from "../../errors/externalWallet";
import type { WalletConnectOptions } from "../../types/externalWallets";

/** What the wallet is asked to allow: sending, signing and switching (EIP-1193 methods). */
const METHODS = [
  "eth_sendTransaction",
  "personal_sign",
  "eth_signTypedData_v4",
  "wallet_switchEthereumChain",
  "wallet_addEthereumChain",
];
const EVENTS = ["chainChanged", "accountsChanged"];
const REQUESTED_CHAINS_KEY = "walletConnect.requestedChains";

type Provider = UniversalProvider;

/** The session's eip155 accounts and chains. */
function sessionNamespace(provider: Provider): { accounts: Address[]; chains: number[]; methods: string[] } {
  const ns = provider.session?.namespaces?.eip155;
  const accounts = (ns?.accounts ?? []).map((a) => getAddress(a.split(":")[2] as string));
  const chains = [
    ...new Set([
      ...(ns?.chains ?? []).map((c) => Number(c.split(":")[1])),
      ...(ns?.accounts ?? []).map((a) => Number(a.split(":")[1])),
    ]),
  ];
  return { accounts: [...new Set(accounts)], chains, methods: ns?.methods ?? [] };
}

/**
 * WalletConnect v2 as a wagmi connector, over `@walletconnect/universal-provider` rather than
 * `@walletconnect/ethereum-provider` (which pulls in the AppKit modal: 400 MB installed and a modal we
 * don't show). The pairing URI goes out as a `display_uri` message; the modal draws the QR code.
 * Chains are stale (spec §4) when the configured chains differ from those the session was asked for:
 * the session is then dropped on the next connect or reconnect.
 */
export function latchkeyWalletConnect(options: WalletConnectOptions & { rpcUrls: Record<number, string> }) {
  let provider: Provider | undefined;
  let init: Promise<Provider> | undefined;
  return createConnector<Provider>((config) => {
    const requestedChains = async (): Promise<number[]> =>
      ((await config.storage?.getItem(REQUESTED_CHAINS_KEY as never)) as number[] | null) ?? [];
    const isChainsStale = async (p: Provider): Promise<boolean> => {
      const { chains, methods } = sessionNamespace(p);
      if (methods.includes("wallet_addEthereumChain")) return false;
      const requested = await requestedChains();
      if (chains.length && !chains.some((id) => config.chains.some((c) => c.id === id))) return true;
      return !config.chains.every((c) => requested.includes(c.id));
    };
    const listen = (p: Provider) => {
      p.on("accountsChanged", onAccounts);
      p.on("chainChanged", onChain);
      p.on("session_delete", onDisconnect);
      p.on("disconnect", onDisconnect);
    };
    const unlisten = (p: Provider) => {
      p.removeListener("accountsChanged", onAccounts);
      p.removeListener("chainChanged", onChain);
      p.removeListener("session_delete", onDisconnect);
      p.removeListener("disconnect", onDisconnect);
    };
    const onAccounts = (accounts: string[]) => connector.onAccountsChanged(accounts);
    const onChain = (chainId: string | number) => connector.onChainChanged(String(chainId));
    const onDisconnect = () => connector.onDisconnect();
    const connector = {
      id: "walletConnect",
      name: "WalletConnect",
      type: "walletConnect" as const,
      async getProvider(): Promise<Provider> {
        if (provider) return provider;
        init ??= (async () => {
          const { UniversalProvider } = await import("@walletconnect/universal-provider");
          const g = globalThis as { location?: { origin: string }; document?: { title?: string } };
          const p = await UniversalProvider.init({
            projectId: options.projectId,
            ...(options.relayUrl ? { relayUrl: options.relayUrl } : {}),
            metadata: options.metadata
              ? { description: "", icons: [], ...options.metadata }
              : {
                  name: g.document?.title || g.location?.origin || "App",
                  description: "",
                  url: g.location?.origin ?? "",
                  icons: [],
                },
            customStoragePrefix: "latchkey",
            telemetryEnabled: false,
          });
          provider = p;
          return p;
        })();
        init.catch(() => {
          init = undefined;
        });
        return init;
      },
      async connect(parameters?: { chainId?: number; isReconnecting?: boolean }) {
        const targetChain = parameters?.chainId ?? config.chains[0]?.id;
        if (!targetChain) throw new ExternalWalletError("NO_CHAINS_ON_CONNECTOR");
        const p = await connector.getProvider();
        listen(p);
        try {
          if (p.session && (await isChainsStale(p))) await p.disconnect().catch(() => {});
          if (!p.session) {
            if (parameters?.isReconnecting) throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
            const onUri = (uri: string) => config.emitter.emit("message", { type: "display_uri", data: uri });
            p.on("display_uri", onUri);
            try {
              await p.connect({
                optionalNamespaces: {
                  eip155: {
                    chains: config.chains.map((c) => `eip155:${c.id}`),
                    methods: METHODS,
                    events: EVENTS,
                    rpcMap: Object.fromEntries(
                      config.chains.map((c) => [
                        c.id,
                        options.rpcUrls[c.id] ?? c.rpcUrls.default.http[0] ?? "",
                      ]),
                    ),
                  },
                },
              });
            } finally {
              p.removeListener("display_uri", onUri);
            }
            await config.storage?.setItem(
              REQUESTED_CHAINS_KEY as never,
              config.chains.map((c) => c.id) as never,
            );
          }
          const { accounts, chains } = sessionNamespace(p);
          const approved = chains.filter((id) => config.chains.some((c) => c.id === id));
          if (!accounts.length || !approved.length) {
            await p.disconnect().catch(() => {});
            throw new ExternalWalletError("WALLET_CHAIN_UNSUPPORTED");
          }
          const chainId = approved.includes(targetChain) ? targetChain : (approved[0] as number);
          p.setDefaultChain(`eip155:${chainId}`, options.rpcUrls[chainId]);
          return { accounts, chainId } as never;
        } catch (error) {
          unlisten(p);
          if (/user rejected|rejected/i.test((error as Error)?.message ?? ""))
            throw new UserRejectedRequestError(error as Error);
          throw error;
        }
      },
      async disconnect() {
        const p = await connector.getProvider();
        unlisten(p);
        try {
          if (p.session) await p.disconnect();
        } catch {
          // A session the wallet already ended.
        }
        await config.storage?.removeItem(REQUESTED_CHAINS_KEY as never);
      },
      async getAccounts() {
        return sessionNamespace(await connector.getProvider()).accounts;
      },
      async getChainId() {
        const p = await connector.getProvider();
        return Number(await p.request<string | number>({ method: "eth_chainId" }));
      },
      async isAuthorized() {
        try {
          const p = await connector.getProvider();
          if (!p.session || !sessionNamespace(p).accounts.length) return false;
          if (await isChainsStale(p)) {
            await p.disconnect().catch(() => {});
            return false;
          }
          return true;
        } catch {
          return false;
        }
      },
      async switchChain({ chainId }: { chainId: number }) {
        const chain = config.chains.find((c) => c.id === chainId);
        if (!chain) throw new ChainNotConfiguredError();
        const p = await connector.getProvider();
        const { chains, methods } = sessionNamespace(p);
        try {
          if (!chains.includes(chainId)) {
            if (!methods.includes("wallet_addEthereumChain"))
              throw new SwitchChainNotSupportedError({ connector: { name: "WalletConnect" } as never });
            await p.request({
              method: "wallet_addEthereumChain",
              params: [
                {
                  chainId: numberToHex(chainId),
                  chainName: chain.name,
                  nativeCurrency: chain.nativeCurrency,
                  rpcUrls: [options.rpcUrls[chainId] ?? chain.rpcUrls.default.http[0]],
                },
              ],
            });
          }
          await p.request({
            method: "wallet_switchEthereumChain",
            params: [{ chainId: numberToHex(chainId) }],
          });
          p.setDefaultChain(`eip155:${chainId}`, options.rpcUrls[chainId]);
          config.emitter.emit("change", { chainId });
          return chain;
        } catch (error) {
          if (/user rejected/i.test((error as Error)?.message ?? ""))
            throw new UserRejectedRequestError(error as Error);
          throw error;
        }
      },
      onAccountsChanged(accounts: string[]) {
        if (accounts.length === 0) connector.onDisconnect();
        else config.emitter.emit("change", { accounts: accounts.map((a) => getAddress(a)) });
      },
      onChainChanged(chain: string) {
        config.emitter.emit("change", { chainId: Number(chain) });
      },
      onDisconnect() {
        void config.storage?.removeItem(REQUESTED_CHAINS_KEY as never);
        config.emitter.emit("disconnect");
      },
    };
    return connector;
  });
}
