import { type EIP1193Provider, numberToHex } from "viem";
import { getSmartAccountClient } from "../actions/getSmartAccountClient";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import { createCallsRegistry } from "./calls";
import {
  invalidParams,
  ProviderRpcError,
  ProviderRpcErrorCode,
  toProviderRpcError,
  unsupportedMethod,
} from "./errors";
import { createListeners, watchSigner } from "./events";
import { bundlerMethods, isRefused, walletMethods } from "./methods";
import { jsonRpc } from "./rpc";
import type {
  CreateEip1193ProviderOptions,
  LatchkeyEip1193Provider,
  ProviderChainConfig,
  ProviderContext,
} from "./types";

/** The message of a provider with no chain at all: it names the settings. */
export const NO_CHAIN_MESSAGE =
  "No chain is configured for the Latchkey wallet: pass chains ([{ chain, rpcUrl }]) to latchkey() or createEip1193Provider (a plain wallet), or chains with a bundlerUrl to createSigner (smart accounts)";

/**
 * The embedded wallet as an EIP-1193 provider, for viem (`custom(provider)`), wagmi, RainbowKit and
 * anything else that speaks the standard. Its account is the signed-in user's smart account, on the chains
 * configured in `createSigner({ chains })`: the embedded EOA itself for a 7702 account (the default,
 * delegated to Simple7702Account by its first operation), or a SimpleAccount (ERC-4337 v0.8) for a 4337 one.
 * On the plain chains of the `chains` option (no bundler) it is the embedded EOA, and `eth_sendTransaction`
 * sends a plain transaction signed by the service (`sign_transaction`) to the chain's RPC; `wallet_sendCalls`
 * and bundler methods fail there with 4200, naming `bundlerUrl`. With no chain at all, `eth_requestAccounts`
 * fails (4900, naming the settings) before `requestAccounts` opens the modal.
 *
 * - `eth_accounts` → `[smart account]` while signed in, `[]` otherwise; `eth_requestAccounts` the same,
 *   awaiting the `requestAccounts` option (e.g. the sign-in modal) while signed out (else 4100).
 * - `eth_chainId`; `wallet_switchEthereumChain` among the configured chains (4902 otherwise, and
 *   `chainChanged` fires); `wallet_addEthereumChain` answers null for a configured chain, else 4902.
 * - `personal_sign`, `eth_signTypedData_v4`: viem's `verifyMessage` and `verifySiweMessage` pass for the
 *   connected address. A 7702 account's EOA signs: the signature recovers to it (ecrecover while it is not
 *   delegated yet, Simple7702Account's ERC-1271 `isValidSignature` after). A 4337 LatchkeySimpleAccount
 *   signs as itself (ERC-6492 while undeployed, ERC-1271 once deployed). An older SimpleAccount (no
 *   ERC-1271) cannot: its owner, the embedded EOA, signs. The address asked for may be the account or
 *   its owner (then the owner's plain signature).
 * - `eth_sendTransaction` → one user operation; answers the including transaction's hash once mined.
 * - EIP-5792: `wallet_sendCalls` (one atomic user operation; the `paymasterService` capability or the
 *   chain's policy sponsors it), `wallet_getCallsStatus`, `wallet_getCapabilities`.
 * - Chain reads (`eth_call`, `eth_getBalance`, `eth_blockNumber`, …) go to the chain's `rpcUrl`, ERC-4337
 *   bundler methods to its `bundlerUrl`; other wallet and signing methods fail with 4200.
 * - Events: `connect` / `accountsChanged` when the user signs in, `accountsChanged` `[]` / `disconnect`
 *   when they sign out, `chainChanged` on a switch.
 *
 * Errors are {@link ProviderRpcError}s with EIP-1193 / EIP-1474 / EIP-5792 codes. The smart-account code
 * loads on first use, as with `getSmartAccountClient`.
 *
 * @example
 * const provider = createEip1193Provider(signer);
 * const wallet = createWalletClient({ chain: base, transport: custom(provider) });
 * const [address] = await wallet.requestAddresses();
 * const { id } = await wallet.sendCalls({ account: address, calls: [{ to, data }, { to, data: data2 }] });
 * const { status, receipts } = await wallet.waitForCallsStatus({ id });
 */
export function createEip1193Provider(
  signer: SignerBase,
  options: CreateEip1193ProviderOptions = {},
): LatchkeyEip1193Provider {
  const configured = (): readonly ProviderChainConfig[] => {
    const smart = signer._internal.options.chains ?? [];
    const plain = (options.chains ?? []).filter((p) => !smart.some((c) => c.chain.id === p.chain.id));
    return [...smart, ...plain];
  };
  let selected = options.chainId;
  let unwatch: (() => void) | undefined;
  const listeners = createListeners({
    onFirst: () => {
      unwatch = watchSigner(ctx);
    },
    onLast: () => {
      unwatch?.();
      unwatch = undefined;
    },
  });
  const fetchFn = signer._internal.options.fetch;

  const ctx: ProviderContext = {
    signer,
    options,
    calls: createCallsRegistry(),
    chainId: () => ctx.chain().chain.id,
    setChainId(chainId) {
      const before = ctx.chainId();
      selected = chainId;
      if (chainId !== before) listeners.emit("chainChanged", numberToHex(chainId));
    },
    chains: configured,
    chain(chainId, code = ProviderRpcErrorCode.CHAIN_DISCONNECTED) {
      const chains = configured();
      const first = chains[0];
      if (!first) {
        throw new ProviderRpcError(ProviderRpcErrorCode.DISCONNECTED, NO_CHAIN_MESSAGE);
      }
      const wanted = chainId ?? selected ?? first.chain.id;
      const config = chains.find((c) => c.chain.id === wanted);
      if (!config) throw new ProviderRpcError(code, `Chain ${numberToHex(wanted)} is not configured`);
      return config;
    },
    rpcUrl(config) {
      const url = config.rpcUrl ?? config.chain.rpcUrls.default.http[0];
      if (!url) {
        throw new ProviderRpcError(
          ProviderRpcErrorCode.CHAIN_DISCONNECTED,
          `Chain ${numberToHex(config.chain.id)} has no RPC URL: set its rpcUrl in the Latchkey wallet's chains`,
        );
      }
      return url;
    },
    bundlerUrl(config, what) {
      if (config.bundlerUrl) return config.bundlerUrl;
      throw new ProviderRpcError(
        ProviderRpcErrorCode.UNSUPPORTED_METHOD,
        `${what} needs an ERC-4337 bundler: chain ${numberToHex(config.chain.id)} has none (the plain wallet sends transactions one at a time); configure it in createSigner's chains ({ chain, rpcUrl, bundlerUrl })`,
      );
    },
    async account(chainId) {
      const config = ctx.chain(chainId);
      if (!config.bundlerUrl) return (await requireUser(signer)).address;
      const client = await getSmartAccountClient(signer, { chainId: ctx.chain(chainId).chain.id });
      return client.account.address;
    },
    rpc: (url, method, params) => jsonRpc(url, method, params, fetchFn),
    emit: (event, payload) => listeners.emit(event, payload),
  };
  if (options.chainId !== undefined) ctx.chain(options.chainId);

  async function request({ method, params }: { method: string; params?: unknown }): Promise<unknown> {
    try {
      if (typeof method !== "string" || method.length === 0) throw invalidParams("method must be a string");
      const handler = Object.hasOwn(walletMethods, method) ? walletMethods[method] : undefined;
      if (handler) {
        if (params !== undefined && params !== null && !Array.isArray(params)) {
          throw invalidParams(`${method} takes its parameters as an array`);
        }
        return await handler(ctx, (params as readonly unknown[] | undefined) ?? []);
      }
      if (isRefused(method)) throw unsupportedMethod(method);
      const config = ctx.chain();
      if (bundlerMethods.has(method)) return await ctx.rpc(ctx.bundlerUrl(config, method), method, params);
      return await ctx.rpc(ctx.rpcUrl(config), method, params);
    } catch (error) {
      throw toProviderRpcError(error);
    }
  }

  return {
    isLatchkey: true,
    request: request as EIP1193Provider["request"],
    on: listeners.on as EIP1193Provider["on"],
    removeListener: listeners.removeListener as EIP1193Provider["removeListener"],
  };
}
