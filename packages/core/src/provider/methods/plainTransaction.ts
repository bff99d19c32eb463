import { createWalletClient, type Hex, http } from "viem";
import { toViemAccount } from "../../accounts/toViemAccount";
import type { ProviderChainConfig, ProviderContext } from "../types";
import { asHex, asQuantity } from "./params";

/**
 * `eth_sendTransaction` on a plain chain (no bundler): a transaction from the user's EOA, signed by the
 * service (`sign_transaction`, so the app's signing policy reads it) and broadcast to the chain's RPC.
 * Answers the transaction's hash once the node took it (not mined yet, as EIP-1474 says).
 */
export async function sendPlainTransaction(
  ctx: ProviderContext,
  config: ProviderChainConfig,
  tx: Record<string, unknown>,
  to: Hex | undefined,
): Promise<Hex> {
  const fetchFn = ctx.signer._internal.options.fetch;
  const client = createWalletClient({
    account: toViemAccount(ctx.signer),
    chain: config.chain,
    transport: http(ctx.rpcUrl(config), fetchFn ? { fetchFn } : {}),
  });
  const rawData = tx.data ?? tx.input;
  const quantity = (name: string) => {
    const value = tx[name];
    return value === undefined || value === null ? undefined : asQuantity(value, name);
  };
  const fields: Record<string, unknown> = {
    to: to ?? null,
    ...(rawData === undefined || rawData === null ? {} : { data: asHex(rawData, "data") }),
  };
  for (const name of ["value", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"] as const) {
    const value = quantity(name);
    if (value !== undefined) fields[name] = value;
  }
  const nonce = quantity("nonce");
  if (nonce !== undefined) fields.nonce = Number(nonce);
  return client.sendTransaction(fields as never);
}
