// Loaded on first use (actions/getSmartAccountClient.ts imports it with `import()`): viem's
// account-abstraction module and permissionless' SimpleAccount stay out of an app's initial JavaScript.
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import { type Chain, type Client, createPublicClient, http, type Transport } from "viem";
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint08Address,
  type SmartAccount,
} from "viem/account-abstraction";
import { toViemAccount } from "../actions/toViemAccount";
import type { SignerBase } from "../signer/types";
import type { LatchkeySmartAccountClient, SmartAccountChainConfig } from "./types";

const DEFAULT_POLLING_INTERVAL_MS = 1_000;

/**
 * The ERC-7677 paymaster a chain's sponsorship goes through: the service's `/rpc/v1` unless configured,
 * or `url` (an operation's own paymaster service). Only the service's endpoint gets the app's credentials
 * and the user's stamp (`X-Stamp`: the session key over the exact body, which the service asks for before
 * it charges the user's daily limits).
 */
export function paymasterClientFor(signer: SignerBase, config: SmartAccountChainConfig, url?: string) {
  const { options } = signer._internal;
  const token = options.apiKey ?? options.jwt;
  const serviceUrl = `${signer.client.baseUrl}/rpc/v1`;
  const target = url ?? config.paymasterUrl ?? serviceUrl;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const stamped: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const { stampHeaderName, stampHeaderValue } = await signer.client.keyHolder.stamp(body);
    const headers = new Headers(init?.headers);
    headers.set(stampHeaderName, stampHeaderValue);
    return doFetch(input, { ...init, headers });
  };
  const ours = target === serviceUrl;
  return createPaymasterClient({
    transport: http(target, {
      ...(ours ? { fetchFn: stamped } : options.fetch ? { fetchFn: options.fetch } : {}),
      fetchOptions: token && ours ? { headers: { authorization: `Bearer ${token}` } } : {},
      retryCount: 0,
    }),
  });
}

/**
 * The user's SimpleAccount (ERC-4337 v0.8, the eth-infinitism reference account through permissionless)
 * on one chain, owned by the embedded wallet, behind a viem bundler client; sponsored by the chain's
 * policy when it has one.
 */
export async function createSmartAccountClient(
  signer: SignerBase,
  config: SmartAccountChainConfig,
): Promise<LatchkeySmartAccountClient> {
  const pollingInterval = config.pollingInterval ?? DEFAULT_POLLING_INTERVAL_MS;
  const fetchOptions = signer._internal.options.fetch ? { fetchFn: signer._internal.options.fetch } : {};
  const publicClient = createPublicClient({
    chain: config.chain,
    transport: http(config.rpcUrl, fetchOptions),
    pollingInterval,
  });
  const account = await SimpleSmartAccount.toSimpleSmartAccount({
    client: publicClient,
    owner: toViemAccount(signer),
    entryPoint: { address: entryPoint08Address, version: "0.8" },
  });
  // Explicit type arguments: the result is LatchkeySmartAccountClient as declared. Inferring them and
  // casting the result made tsc compare viem's whole inferred client type with it: ~180 s of checking.
  return createBundlerClient<Transport, Chain, SmartAccount, Client | undefined>({
    account,
    chain: config.chain,
    client: publicClient,
    transport: http(config.bundlerUrl, { ...fetchOptions, retryCount: 0 }),
    pollingInterval,
    ...(config.policyId
      ? { paymaster: paymasterClientFor(signer, config), paymasterContext: { policyId: config.policyId } }
      : {}),
  });
}
