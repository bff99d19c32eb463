import {
  type Address,
  type Chain,
  createWalletClient,
  defineChain,
  type Hex,
  hexToBigInt,
  hexToNumber,
  http,
  isAddress,
  isAddressEqual,
  isHex,
  type LocalAccount,
  stringToHex,
  type TypedDataDefinition,
} from "viem";
import { ProviderError } from "./behaviour.js";

/** A chain a test wallet knows: its id and the JSON-RPC node it signs for and reads from. */
export interface WalletChain {
  id: number;
  rpcUrl: string;
  /** Shown nowhere; default `Chain <id>`. */
  name?: string;
}

/** The request fields of `eth_sendTransaction` (EIP-1474: hex quantities). */
export interface RpcTransactionRequest {
  from?: Address;
  to?: Address | null;
  data?: Hex;
  input?: Hex;
  value?: Hex;
  gas?: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  nonce?: Hex;
}

/** EIP-1193's "not authorized" error: a signing method before the dapp was connected, or for another address. */
export const UNAUTHORIZED = {
  code: 4100,
  message: "The requested account and/or method has not been authorized by the user.",
};

/** A viem chain for a wallet chain (what viem's wallet client checks the node's chain id against). */
export function viemChain({ id, rpcUrl, name }: WalletChain): Chain {
  return defineChain({
    id,
    name: name ?? `Chain ${id}`,
    nativeCurrency: { decimals: 18, name: "Ether", symbol: "ETH" },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * What a test wallet does with its key: signs (personal_sign, eth_signTypedData_v4), signs and sends
 * transactions on a chain's node (one at a time, so that concurrent sends get distinct nonces), and forwards
 * anything else to the node. The key never leaves `account`.
 */
export function accountActions(account: LocalAccount) {
  let sending: Promise<unknown> = Promise.resolve();

  const checkAddress = (address: unknown) => {
    if (typeof address === "string" && isAddress(address, { strict: false })) {
      if (!isAddressEqual(address, account.address)) throw new ProviderError(UNAUTHORIZED);
    }
  };

  return {
    /** personal_sign: `[message, address]` (MetaMask also takes plain text, and the two swapped). */
    personalSign(params: unknown[]): Promise<Hex> {
      let [message, address] = params as [string, string];
      if (isAddress(message ?? "", { strict: false }) && !isAddress(address ?? "", { strict: false })) {
        [message, address] = [address, message];
      }
      checkAddress(address);
      if (typeof message !== "string") throw new ProviderError({ code: -32602, message: "Invalid message" });
      return account.signMessage({ message: { raw: isHex(message) ? message : stringToHex(message) } });
    },

    /** eth_signTypedData_v4: `[address, typedData]`, the typed data as JSON text or as an object. */
    signTypedData(params: unknown[]): Promise<Hex> {
      const [address, data] = params as [string, string | object];
      checkAddress(address);
      const typed = (typeof data === "string" ? JSON.parse(data) : data) as TypedDataDefinition;
      if (!account.signTypedData) throw new ProviderError({ code: 4200, message: "Cannot sign typed data" });
      return account.signTypedData(typed);
    },

    /** eth_sendTransaction on `chain`: signed here, sent to its node; resolves with the hash (not the receipt). */
    sendTransaction(chain: WalletChain, params: unknown[]): Promise<Hex> {
      const tx = (params[0] ?? {}) as RpcTransactionRequest;
      checkAddress(tx.from);
      const client = createWalletClient({ account, chain: viemChain(chain), transport: http(chain.rpcUrl) });
      const big = (v: Hex | undefined) => (v === undefined ? undefined : hexToBigInt(v));
      const send = () =>
        client.sendTransaction({
          to: tx.to ?? null,
          data: tx.data ?? tx.input,
          value: big(tx.value),
          gas: big(tx.gas),
          nonce: tx.nonce === undefined ? undefined : hexToNumber(tx.nonce),
          ...(tx.gasPrice !== undefined
            ? { gasPrice: big(tx.gasPrice) }
            : { maxFeePerGas: big(tx.maxFeePerGas), maxPriorityFeePerGas: big(tx.maxPriorityFeePerGas) }),
        } as Parameters<typeof client.sendTransaction>[0]);
      const result = sending.then(send, send);
      sending = result.catch(() => {});
      return result;
    },
  };
}

/** Sends one JSON-RPC request to a node and answers its result, or throws its error (code, message, data). */
export async function forwardRpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  if (!response.ok) {
    throw new ProviderError({ code: -32603, message: `${rpcUrl}: HTTP ${response.status}` });
  }
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error) throw new ProviderError(body.error);
  return body.result;
}

/** A chain id as `wallet_switchEthereumChain` / `wallet_addEthereumChain` give it: "0x7a69" (or a number). */
export function parseChainId(value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && isHex(value)) return hexToNumber(value);
  throw new ProviderError({ code: -32602, message: `Invalid chainId: ${String(value)}` });
}
