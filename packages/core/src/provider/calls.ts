import { type Hex, numberToHex } from "viem";
import { ProviderRpcError, ProviderRpcErrorCode } from "./errors";

/** EIP-5792 batch status codes this wallet answers (a batch is one user operation: never partial). */
export const CallsStatusCode = {
  /** Sent to the bundler, not yet in a block. */
  PENDING: 100,
  /** In a block, the operation succeeded. */
  CONFIRMED: 200,
  /** Not included and never will be: the bundler rejected or dropped the operation. */
  OFFCHAIN_FAILURE: 400,
  /** In a block, the operation reverted (only the gas was paid). */
  REVERTED: 500,
} as const;

/** Where a batch went: its chain and, once the bundler took it, the user operation that carries it. */
export interface CallsBatch {
  chainId: number;
  userOperationHash?: Hex;
}

/**
 * The batches this provider sent, by EIP-5792 id: the app's (`wallet_sendCalls`' `id`) or, by default,
 * the user operation's hash (so a batch sent before a reload can still be found on its bundler).
 */
export interface CallsRegistry {
  /** Claims an id for a batch on `chainId` before it is sent; 5720 (duplicate id) when it is taken. */
  reserve(id: string, chainId: number): void;
  /** The batch's user operation, once the bundler took it. */
  sent(id: string, userOperationHash: Hex): void;
  /** Forgets a claimed id whose batch could not be sent. */
  release(id: string): void;
  get(id: string): CallsBatch | undefined;
}

/** An empty {@link CallsRegistry}. */
export function createCallsRegistry(): CallsRegistry {
  const batches = new Map<string, CallsBatch>();
  return {
    reserve(id, chainId) {
      if (batches.has(id)) {
        throw new ProviderRpcError(
          ProviderRpcErrorCode.DUPLICATE_ID,
          `A batch with id ${id} was already sent`,
        );
      }
      batches.set(id, { chainId });
    },
    sent(id, userOperationHash) {
      const batch = batches.get(id);
      if (batch) batches.set(id, { ...batch, userOperationHash });
    },
    release: (id) => {
      batches.delete(id);
    },
    get: (id) => batches.get(id),
  };
}

/** What `eth_getUserOperationReceipt` answers (ERC-4337), the parts used here. */
export interface RpcUserOperationReceiptLike {
  success: boolean;
  logs: readonly { address: Hex; data: Hex; topics: readonly Hex[] }[];
  receipt: { blockHash: Hex; blockNumber: Hex; gasUsed: Hex; transactionHash: Hex };
}

/** One receipt of `wallet_getCallsStatus` (EIP-5792), RPC-encoded. */
export interface CallsReceipt {
  logs: { address: Hex; data: Hex; topics: Hex[] }[];
  status: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  gasUsed: Hex;
  transactionHash: Hex;
}

/** `wallet_getCallsStatus`' answer (EIP-5792 version 2.0.0). */
export interface CallsStatus {
  version: "2.0.0";
  id: string;
  chainId: Hex;
  status: number;
  atomic: true;
  receipts?: CallsReceipt[];
}

/**
 * The EIP-5792 status of a batch from its user operation's receipt: none yet is pending (or an
 * off-chain failure when the bundler said it dropped the operation); a receipt is confirmed or
 * reverted, with one receipt, the operation's logs in the transaction that included it.
 */
export function callsStatusOf(
  id: string,
  chainId: number,
  receipt: RpcUserOperationReceiptLike | null,
  dropped = false,
): CallsStatus {
  const base = { version: "2.0.0" as const, id, chainId: numberToHex(chainId), atomic: true as const };
  if (!receipt) {
    return { ...base, status: dropped ? CallsStatusCode.OFFCHAIN_FAILURE : CallsStatusCode.PENDING };
  }
  const { blockHash, blockNumber, gasUsed, transactionHash } = receipt.receipt;
  return {
    ...base,
    status: receipt.success ? CallsStatusCode.CONFIRMED : CallsStatusCode.REVERTED,
    receipts: [
      {
        logs: receipt.logs.map(({ address, data, topics }) => ({ address, data, topics: [...topics] })),
        status: receipt.success ? "0x1" : "0x0",
        blockHash,
        blockNumber,
        gasUsed,
        transactionHash,
      },
    ],
  };
}
