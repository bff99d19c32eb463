import { randomUUID } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { type Address, type LocalAccount, numberToHex } from "viem";
import {
  createBehaviour,
  ProviderError,
  type ProviderErrorShape,
  toProviderError,
  type WalletBehaviour,
} from "./behaviour.js";
import { accountActions, forwardRpc, parseChainId, UNAUTHORIZED, type WalletChain } from "./evm.js";

/** EIP-6963's provider info (what a dapp shows in its wallet list; `rdns` is wagmi's connector id). */
export interface WalletInfo {
  uuid: string;
  name: string;
  rdns: string;
  /** A data: URL. */
  icon: string;
}

/** A chain of the injected test wallet. */
export interface InjectedWalletChain extends WalletChain {
  /**
   * false: the wallet does not know this chain yet (`wallet_switchEthereumChain` answers 4902) until a dapp adds
   * it with `wallet_addEthereumChain` (then this `rpcUrl` is used, not the dapp's). Default true.
   */
  added?: boolean;
}

export interface InjectedWalletOptions {
  /** The key: signs in the test process, never sent to the page. */
  account: LocalAccount;
  /** The chains it knows; the first one is the current one at the start. */
  chains: InjectedWalletChain[];
  /** Default: "Latchkey Test Wallet", "dev.latchkey.testwallet", a small SVG, a random uuid. */
  info?: Partial<WalletInfo>;
  /** Already connected to the dapp at the start (as if the user had connected it before). Default false. */
  connected?: boolean;
  /**
   * `wallet_addEthereumChain` also switches to the chain it added, as MetaMask does (wagmi's `switchChain`
   * expects it: it fails with "User rejected switch after adding network" otherwise). Default true.
   */
  switchOnAdd?: boolean;
  /**
   * Methods it does not implement (e.g. `wallet_switchEthereumChain` for a wallet that cannot change network
   * on a dapp's request): every call answers EIP-1193's 4200 "Unsupported Method". Default none.
   */
  unsupportedMethods?: string[];
  /** Also set `window.ethereum` (the pre-EIP-6963 way). Default false. */
  windowEthereum?: boolean;
  /** How it behaves from the start (the returned wallet's controls change it later). */
  behaviour?: { rejecting?: string[]; delays?: Record<string, number> };
}

/** One request a page made to the wallet. */
export interface WalletCall {
  method: string;
  params: unknown[];
  /** The URL of the frame that asked. */
  origin: string;
}

/**
 * The injected test wallet, as the test sees it: its state, and controls that act as its user would. The
 * state (connection, current chain, added chains) belongs to the wallet, like an extension's: every page it is
 * installed on shares it.
 */
export interface InjectedWallet extends WalletBehaviour {
  address: Address;
  info: WalletInfo;
  /** Every request, in order (including rejected ones). A test may clear it: `wallet.calls.length = 0`. */
  calls: WalletCall[];
  /** The current chain's id. */
  readonly chainId: number;
  /** Whether a dapp was given the account (`eth_requestAccounts` / `wallet_requestPermissions` answered). */
  readonly connected: boolean;
  /** The chains it knows now. */
  chains(): WalletChain[];
  /** Connects, as if the user connected the site from the wallet: emits accountsChanged [address]. */
  connect(): Promise<void>;
  /** Disconnects the dapp (as `wallet_revokePermissions` does): emits accountsChanged []. */
  disconnect(): Promise<void>;
  /** The user picks another (known) network in the wallet: emits chainChanged. Throws for an unknown chain. */
  switchChain(chainId: number): Promise<void>;
  /** The user adds a network in the wallet (no switch, no event). */
  addChain(chain: WalletChain): void;
  /** Fires an EIP-1193 event on the provider of every page it is installed on, e.g. `emit("accountsChanged", [])`. */
  emit(event: string, ...args: unknown[]): Promise<void>;
}

/** The default icon: a small key-coloured square, as an SVG data URL. */
const DEFAULT_ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='6' fill='%23f5b400'/%3E%3C/svg%3E";

/** Methods that need the user's permission (the wallet connected to the dapp). */
const NEEDS_CONNECTION = new Set(["personal_sign", "eth_signTypedData_v4", "eth_sendTransaction"]);

/**
 * Installs an EIP-6963 test wallet into a Playwright page, or into every page of a browser context. The page
 * gets a provider (`request`, `on`, `removeListener`) announced at load and on `eip6963:requestProvider`; its
 * requests go to this (test) process through a binding, where the key signs and the chain's node is called.
 * A page without a wallet is a page where this was not called.
 * @example
 * const wallet = await installInjectedWallet(context, { account, chains: [{ id: 31337, rpcUrl: stack.rpcUrl }] });
 * wallet.rejectNext("personal_sign");
 */
export async function installInjectedWallet(
  target: Page | BrowserContext,
  options: InjectedWalletOptions,
): Promise<InjectedWallet> {
  const { account, switchOnAdd = true } = options;
  if (!options.chains.length) throw new Error("installInjectedWallet: give at least one chain");
  const info: WalletInfo = {
    uuid: randomUUID(),
    name: "Latchkey Test Wallet",
    rdns: "dev.latchkey.testwallet",
    icon: DEFAULT_ICON,
    ...options.info,
  };
  const known = new Map<number, WalletChain>();
  const notAdded = new Map<number, WalletChain>();
  for (const { added = true, ...chain } of options.chains) (added ? known : notAdded).set(chain.id, chain);
  let current = options.chains[0]!.id;
  let connected = options.connected ?? false;
  if (!known.has(current)) throw new Error("installInjectedWallet: the first chain must be added");

  const unsupported = new Set(options.unsupportedMethods ?? []);
  const { behaviour, gate } = createBehaviour();
  behaviour.setRejecting(options.behaviour?.rejecting ?? []);
  for (const [method, ms] of Object.entries(options.behaviour?.delays ?? {})) behaviour.setDelay(method, ms);
  const actions = accountActions(account);
  const calls: WalletCall[] = [];
  const id = info.uuid.replaceAll("-", "");
  const binding = `__latchkeyTestWallet_${id}`;
  const emitter = `__latchkeyTestWalletEmit_${id}`;

  const pages = (): Page[] => ("newPage" in target ? target.pages() : [target]);
  /** Fires `event` in every frame of every page that has the provider (pages that navigate away miss it). */
  const emit = async (event: string, ...args: unknown[]) => {
    const script = `window[${JSON.stringify(emitter)}]?.(${JSON.stringify(event)}, ${JSON.stringify(args)})`;
    const frames = pages().flatMap((page) => (page.isClosed() ? [] : page.frames()));
    await Promise.all(frames.map((frame) => frame.evaluate(script).catch(() => {})));
  };
  const chain = () => known.get(current)!;
  const permission = (origin: string) => ({
    id: info.uuid,
    parentCapability: "eth_accounts",
    invoker: origin,
    date: Date.now(),
    caveats: [{ type: "restrictReturnedAccounts", value: [account.address] }],
  });
  const setConnected = async (value: boolean) => {
    if (connected === value) return;
    connected = value;
    await emit("accountsChanged", value ? [account.address] : []);
  };
  const switchTo = async (chainId: number) => {
    if (!known.has(chainId)) {
      const hex = numberToHex(chainId);
      throw new ProviderError({
        code: 4902,
        message: `Unrecognized chain ID "${hex}". Try adding the chain using wallet_addEthereumChain first.`,
      });
    }
    if (chainId === current) return;
    current = chainId;
    await emit("chainChanged", numberToHex(chainId));
  };
  const addChain = (params: unknown[]) => {
    const { chainId, rpcUrls, chainName } = (params[0] ?? {}) as {
      chainId?: unknown;
      rpcUrls?: string[];
      chainName?: string;
    };
    const chainIdNumber = parseChainId(chainId);
    if (!known.has(chainIdNumber)) {
      const rpcUrl = notAdded.get(chainIdNumber)?.rpcUrl ?? rpcUrls?.[0];
      if (!rpcUrl) throw new ProviderError({ code: -32602, message: "rpcUrls: give at least one URL" });
      known.set(chainIdNumber, { id: chainIdNumber, rpcUrl, name: chainName });
      notAdded.delete(chainIdNumber);
    }
    return chainIdNumber;
  };

  /** Answers one request (after the behaviour's gate). */
  async function handle(method: string, params: unknown[], origin: string): Promise<unknown> {
    await gate(method);
    if (unsupported.has(method)) {
      throw new ProviderError({ code: 4200, message: `The wallet does not support ${method}.` });
    }
    if (NEEDS_CONNECTION.has(method) && !connected) throw new ProviderError(UNAUTHORIZED);
    switch (method) {
      case "eth_requestAccounts":
        await setConnected(true);
        return [account.address];
      case "eth_accounts":
        return connected ? [account.address] : [];
      case "wallet_requestPermissions":
        await setConnected(true);
        return [permission(origin)];
      case "wallet_getPermissions":
        return connected ? [permission(origin)] : [];
      case "wallet_revokePermissions":
        await setConnected(false);
        return null;
      case "eth_chainId":
        return numberToHex(current);
      case "net_version":
        return String(current);
      case "wallet_switchEthereumChain":
        await switchTo(parseChainId((params[0] as { chainId?: unknown } | undefined)?.chainId));
        return null;
      case "wallet_addEthereumChain": {
        const added = addChain(params);
        if (switchOnAdd) await switchTo(added);
        return null;
      }
      case "personal_sign":
        return actions.personalSign(params);
      case "eth_signTypedData_v4":
        return actions.signTypedData(params);
      case "eth_sendTransaction":
        return actions.sendTransaction(chain(), params);
      case "eth_sign":
      case "eth_signTransaction":
        throw new ProviderError({ code: 4200, message: `The wallet does not support ${method}.` });
      default:
        if (method.startsWith("wallet_")) {
          throw new ProviderError({ code: 4200, message: `The wallet does not support ${method}.` });
        }
        return forwardRpc(chain().rpcUrl, method, params);
    }
  }

  const answer = async (
    frameUrl: string,
    request: { method: string; params?: unknown },
  ): Promise<{ result: unknown } | { error: ProviderErrorShape }> => {
    const params = Array.isArray(request.params)
      ? request.params
      : request.params === undefined
        ? []
        : [request.params];
    calls.push({ method: request.method, params, origin: frameUrl });
    try {
      return { result: (await handle(request.method, params, originOf(frameUrl))) ?? null };
    } catch (error) {
      return { error: toProviderError(error) };
    }
  };
  await target.exposeBinding(binding, ({ frame }, request) => answer(frame.url(), request));
  await target.addInitScript({
    content: pageProvider({ binding, emitter, info, windowEthereum: options.windowEthereum }),
  });

  return {
    address: account.address,
    info,
    calls,
    get chainId() {
      return current;
    },
    get connected() {
      return connected;
    },
    chains: () => [...known.values()],
    connect: () => setConnected(true),
    disconnect: () => setConnected(false),
    switchChain: (chainId) => switchTo(chainId),
    addChain: (added) => {
      known.set(added.id, added);
      notAdded.delete(added.id);
    },
    emit,
    ...behaviour,
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * The page's side, as plain JavaScript text (not a serialised function: what a transpiler adds to functions,
 * such as tsx's `__name`, does not exist in the page). It runs before the page's scripts, in every frame.
 */
function pageProvider(config: {
  binding: string;
  emitter: string;
  info: WalletInfo;
  windowEthereum?: boolean;
}) {
  return `(() => {
  const config = ${JSON.stringify(config)};
  const listeners = new Map();
  const toError = (e) => Object.assign(new Error(e.message), { code: e.code }, e.data === undefined ? {} : { data: e.data });
  const provider = {
    request(args) {
      if (!args || typeof args !== "object" || typeof args.method !== "string") {
        return Promise.reject(toError({ code: -32600, message: "Invalid request: { method, params } expected" }));
      }
      return window[config.binding]({ method: args.method, params: args.params }).then((answer) => {
        if (answer.error) throw toError(answer.error);
        return answer.result;
      });
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(listener);
      return provider;
    },
    removeListener(event, listener) {
      const list = listeners.get(event) || [];
      const i = list.indexOf(listener);
      if (i >= 0) list.splice(i, 1);
      return provider;
    },
  };
  provider.addListener = provider.on;
  provider.off = provider.removeListener;
  Object.defineProperty(window, config.emitter, {
    value: (event, args) => {
      for (const listener of [...(listeners.get(event) || [])]) {
        try { listener(...args); } catch (error) { setTimeout(() => { throw error; }); }
      }
    },
  });
  if (config.windowEthereum) window.ethereum = provider;
  const detail = Object.freeze({ info: Object.freeze(config.info), provider });
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();`;
}
