// @latchkey/core/wagmi: the embedded wallet as a wagmi connector. @wagmi/core is an optional peer
// dependency: only apps that import this subpath need it.
import { ChainNotConfiguredError, ConnectorNotConnectedError, createConnector } from "@wagmi/core";
import {
  type Address,
  getAddress,
  numberToHex,
  type ProviderConnectInfo,
  SwitchChainError,
  UserRejectedRequestError,
} from "viem";
import { LATCHKEY_ICON, LATCHKEY_RDNS } from "./provider/announce";
import { createEip1193Provider } from "./provider/createEip1193Provider";
import type {
  CreateEip1193ProviderOptions,
  LatchkeyEip1193Provider,
  PlainChainConfig,
} from "./provider/types";
import type { SignerBase } from "./signer/types";

/** What the `latchkey()` wagmi connector takes. */
export interface LatchkeyParameters {
  /** The signer of `createSigner` (the same one the app signs in with). */
  signer: SignerBase;
  /**
   * Called by `connect()` while nobody is signed in, e.g. to open a sign-in page of your own; `connect`
   * goes on once it resolves with a user signed in. Without it, connecting opens the modal of the mounted
   * `<LatchkeyProvider signer={signer}>` (see `setSignInPrompt`), and with neither it fails (4100).
   */
  requestAccounts?: () => Promise<void>;
  /**
   * Called by `wallet_grantPermissions` (ERC-7715) to show the user what is granted and make the grant
   * (e.g. `useGrantConsent().requestGrant` of @latchkey/react); see `createEip1193Provider`.
   */
  requestGrant?: CreateEip1193ProviderOptions["requestGrant"];
  /** The chain to start on: one of the wallet's chains; the first one by default. */
  chainId?: number;
  /**
   * The chains without a bundler (the plain wallet: EOA transactions) with their RPC URLs. By default,
   * when `createSigner` got no `chains`, the wagmi config's chains, each with its `http(url)` transport's
   * URL (else the chain's default RPC URL); none when it did (its chains, with a `bundlerUrl`, use the
   * smart account).
   */
  chains?: readonly PlainChainConfig[];
}

/** The wagmi config's chains, each with the URL of its `http()` transport when it has one. */
function wagmiChains(config: {
  chains: readonly PlainChainConfig["chain"][];
  transports?: Record<number, unknown> | undefined;
}): PlainChainConfig[] {
  return config.chains.map((chain) => {
    let url: unknown;
    try {
      const transport = config.transports?.[chain.id] as
        | ((parameters: { chain: PlainChainConfig["chain"] }) => { value?: { url?: unknown } })
        | undefined;
      url = transport?.({ chain })?.value?.url;
    } catch {
      url = undefined;
    }
    return typeof url === "string" && url.length > 0 ? { chain, rpcUrl: url } : { chain };
  });
}

/**
 * The wallet's chains, checked when the wagmi config is made: a misconfiguration fails there, before any
 * modal opens, with a message naming the setting.
 */
function checkedChains(parameters: LatchkeyParameters, chains: readonly PlainChainConfig[]) {
  const smart = parameters.signer._internal.options.chains ?? [];
  const all = [...smart, ...chains];
  if (all.length === 0) {
    throw new Error(
      "latchkey(): no chain is configured: give wagmi's createConfig chains, latchkey({ chains: [{ chain, rpcUrl }] }), or createSigner({ chains }) with a bundlerUrl",
    );
  }
  for (const { chain, rpcUrl } of all) {
    if (!rpcUrl && !chain.rpcUrls?.default?.http?.[0]) {
      throw new Error(
        `latchkey(): chain ${chain.id} (${chain.name}) has no RPC URL: set rpcUrl in latchkey({ chains: [{ chain, rpcUrl }] }) or give it an http(url) transport in createConfig`,
      );
    }
  }
  if (parameters.chainId !== undefined && !all.some((c) => c.chain.id === parameters.chainId)) {
    throw new Error(
      `latchkey(): chainId ${parameters.chainId} is not one of the wallet's chains (wagmi's chains, latchkey({ chains }) or createSigner({ chains }))`,
    );
  }
}

latchkey.type = "latchkey" as const;

/**
 * A wagmi connector for the embedded wallet (id and type "latchkey", name "Latchkey", rdns
 * "dev.latchkey"): the account is the user's smart account, behind the EIP-1193 provider of
 * `createEip1193Provider`, so wagmi's actions and hooks work unchanged — `sendCalls` / `useSendCalls`
 * (one atomic, optionally sponsored user operation), `sendTransaction`, `signMessage` and
 * `signTypedData` (signed by the embedded EOA: the account itself for a 7702 account, so viem's
 * `verifyMessage` and `verifySiweMessage` pass for the connected address; see `createEip1193Provider`),
 * `switchChain` among the chains configured in both wagmi and `createSigner`. Without `chains` in
 * `createSigner` (no bundler) it is a plain wallet on wagmi's chains: the account is the EOA,
 * `sendTransaction` sends a plain transaction signed by the service, `sendCalls` is refused (4200, naming
 * `bundlerUrl`); a chain without an RPC URL throws when the wagmi config is made. A sign-in elsewhere (the
 * Latchkey modal) connects wagmi; a sign-out disconnects it. wagmi's `disconnect` only detaches wagmi:
 * the user stays signed in to Latchkey (call the signer's `disconnect` to sign out).
 *
 * @example
 * import { latchkey } from "@latchkey/core/wagmi";
 * const config = createConfig({
 *   chains: [base],
 *   connectors: [latchkey({ signer })],
 *   transports: { [base.id]: http() },
 * });
 * await connect(config, { connector: config.connectors[0] });
 * const { id } = await sendCalls(config, { calls: [{ to, data }, { to, data: data2 }] });
 * // Sponsored by the service's paymaster (ERC-7677) under one of the app's policies:
 * await sendCalls(config, {
 *   calls,
 *   capabilities: { paymasterService: { url: `${serviceUrl}/rpc/v1`, context: { policyId } } },
 * });
 */
export function latchkey(parameters: LatchkeyParameters) {
  type Provider = LatchkeyEip1193Provider;
  let provider: Provider | undefined;
  let plainChains: readonly PlainChainConfig[] = parameters.chains ?? [];
  const getProvider = (): Provider => {
    provider ??= createEip1193Provider(parameters.signer, {
      chains: plainChains,
      ...(parameters.chainId !== undefined ? { chainId: parameters.chainId } : {}),
      ...(parameters.requestAccounts ? { requestAccounts: parameters.requestAccounts } : {}),
      ...(parameters.requestGrant ? { requestGrant: parameters.requestGrant } : {}),
    });
    return provider;
  };
  // The connector's handlers on the provider: `connect` while wagmi is not connected, the others while it is.
  type Handlers = {
    onAccountsChanged(accounts: string[]): void;
    onChainChanged(chainId: string): void;
    onConnect?(info: ProviderConnectInfo): void;
    onDisconnect(error?: Error): void;
  };
  let listening: {
    accountsChanged: (accounts: Address[]) => void;
    chainChanged: (chainId: string) => void;
    disconnect: (error: Error) => void;
  } | null = null;
  let connectListener: ((info: ProviderConnectInfo) => void) | null = null;
  const listenConnected = (connector: Handlers) => {
    const p = getProvider();
    if (connectListener) p.removeListener("connect", connectListener);
    connectListener = null;
    if (listening) return;
    listening = {
      accountsChanged: (accounts) => connector.onAccountsChanged(accounts),
      chainChanged: (chainId) => connector.onChainChanged(chainId),
      disconnect: (error) => connector.onDisconnect(error),
    };
    p.on("accountsChanged", listening.accountsChanged);
    p.on("chainChanged", listening.chainChanged);
    p.on("disconnect", listening.disconnect);
  };
  const listenDisconnected = (connector: Handlers) => {
    const p = getProvider();
    if (listening) {
      p.removeListener("accountsChanged", listening.accountsChanged);
      p.removeListener("chainChanged", listening.chainChanged);
      p.removeListener("disconnect", listening.disconnect);
      listening = null;
    }
    if (!connectListener) {
      connectListener = (info) => connector.onConnect?.(info);
      p.on("connect", connectListener);
    }
  };
  // wagmi's `disconnect` detaches until the next connect (or sign-in).
  let detached = false;

  return createConnector<Provider>((config) => {
    // With chains in createSigner the wallet is the smart account on those; without, the plain wallet
    // (the EOA) on wagmi's chains.
    const smart = parameters.signer._internal.options.chains ?? [];
    plainChains = parameters.chains ?? (smart.length > 0 ? [] : wagmiChains(config));
    checkedChains(parameters, plainChains);
    return {
      id: "latchkey",
      name: "Latchkey",
      type: latchkey.type,
      icon: LATCHKEY_ICON,
      rdns: LATCHKEY_RDNS,

      async setup() {
        // A sign-in outside wagmi (the Latchkey modal, a stored session) connects wagmi.
        if (!listening) listenDisconnected(this);
      },

      async connect({ chainId, isReconnecting, withCapabilities } = {}) {
        const p = getProvider();
        let accounts: readonly Address[];
        try {
          accounts = isReconnecting
            ? await this.getAccounts()
            : ((await p.request({ method: "eth_requestAccounts" })) as Address[]).map((a) => getAddress(a));
        } catch (error) {
          if ((error as { code?: number }).code === UserRejectedRequestError.code) {
            throw new UserRejectedRequestError(error as Error);
          }
          throw error;
        }
        if (accounts.length === 0) throw new ConnectorNotConnectedError();
        detached = false;
        listenConnected(this);
        let currentChainId = await this.getChainId();
        if (chainId && currentChainId !== chainId) {
          const chain = await this.switchChain!({ chainId }).catch((error: { code?: number }) => {
            if (error.code === UserRejectedRequestError.code) throw error;
            return { id: currentChainId };
          });
          currentChainId = chain.id;
        }
        return {
          accounts: (withCapabilities
            ? accounts.map((address) => ({ address, capabilities: {} }))
            : accounts) as never,
          chainId: currentChainId,
        };
      },

      async disconnect() {
        detached = true;
        listenDisconnected(this);
      },

      async getAccounts() {
        const accounts = (await getProvider().request({ method: "eth_accounts" })) as Address[];
        return accounts.map((a) => getAddress(a));
      },

      async getChainId() {
        return Number(await getProvider().request({ method: "eth_chainId" }));
      },

      async getProvider() {
        return getProvider();
      },

      async isAuthorized() {
        if (detached) return false;
        try {
          return (await this.getAccounts()).length > 0;
        } catch {
          return false;
        }
      },

      async switchChain({ chainId }) {
        const chain = config.chains.find((c) => c.id === chainId);
        if (!chain) throw new SwitchChainError(new ChainNotConfiguredError());
        try {
          await getProvider().request({
            method: "wallet_switchEthereumChain",
            params: [{ chainId: numberToHex(chainId) }],
          });
        } catch (error) {
          if ((error as { code?: number }).code === UserRejectedRequestError.code) {
            throw new UserRejectedRequestError(error as Error);
          }
          throw new SwitchChainError(error as Error);
        }
        // The provider fired chainChanged if the chain changed; wagmi's state follows either way.
        config.emitter.emit("change", { chainId });
        return chain;
      },

      onAccountsChanged(accounts) {
        if (accounts.length === 0) this.onDisconnect();
        else config.emitter.emit("change", { accounts: accounts.map((a) => getAddress(a)) });
      },

      onChainChanged(chain) {
        config.emitter.emit("change", { chainId: Number(chain) });
      },

      async onConnect(info) {
        if (detached || listening) return;
        const accounts = await this.getAccounts().catch(() => [] as Address[]);
        if (accounts.length === 0 || listening) return;
        listenConnected(this);
        config.emitter.emit("connect", { accounts, chainId: Number(info.chainId) });
      },

      onDisconnect() {
        // A sign-out: `accountsChanged([])` and `disconnect` both say so; wagmi hears it once.
        if (!listening) return;
        listenDisconnected(this);
        config.emitter.emit("disconnect");
      },
    };
  });
}
