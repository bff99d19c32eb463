// Loaded on first use (by ./send and the wallet): the send primitives over a @solana/kit Rpc. HTTP only:
// confirmation polls `getSignatureStatuses`, so no WebSocket is needed in the browser.
import {
  type Base64EncodedWireTransaction,
  createSolanaRpc,
  type GetBlockHeightApi,
  type GetLatestBlockhashApi,
  type GetSignatureStatusesApi,
  type Rpc,
  type SendTransactionApi,
  type Signature,
} from "@solana/kit";
import { SolanaError } from "../errors/solana";
import type { SolanaCommitment, SolanaRpcLike } from "../types/solana";
import { type ProgramsByIndex, toConfirmedFailure, toSendError } from "./failures";

/** How often a sent transaction's status is asked for (short: a browser waits on it). */
export const CONFIRMATION_POLL_INTERVAL_MS = 200;

/** The @solana/kit `Rpc` sending uses: the methods `SolanaRpcLike` names, with kit's own types. */
export type KitRpc = Rpc<
  GetLatestBlockhashApi & SendTransactionApi & GetSignatureStatusesApi & GetBlockHeightApi
>;

/**
 * The Rpc to use: `connection` itself, or one over its URL; a missing connection is an error. The app's
 * `Rpc` comes typed as `SolanaRpcLike` (the main entry's structural type, free of kit's): it is kit's.
 */
export function resolveRpc(connection: string | SolanaRpcLike | undefined): KitRpc {
  if (!connection) throw new SolanaError("SOLANA_CONNECTION_MISSING");
  return typeof connection === "string" ? createSolanaRpc(connection) : (connection as unknown as KitRpc);
}

/** The latest blockhash at `confirmed`, and the last block height it is valid at. */
export async function latestBlockhash(rpc: KitRpc) {
  try {
    const { value } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
    return value;
  } catch (error) {
    throw toSendError(error);
  }
}

export interface SendWireOptions {
  preflightCommitment?: SolanaCommitment;
  skipPreflight?: boolean;
  maxRetries?: number;
  /** The transaction's instruction programs, to read `Custom` errors (the System program's). */
  programs?: ProgramsByIndex;
}

/**
 * Sends a signed wire transaction (base64) and answers its signature. A preflight failure throws a
 * SolanaError: BLOCKHASH_EXPIRED (the caller may retry with a fresh blockhash), INSUFFICIENT_FUNDS,
 * INSUFFICIENT_FUNDS_FOR_RENT, SOLANA_TRANSACTION_FAILED; anything else SOLANA_SEND_FAILED.
 */
export async function sendWireTransaction(
  rpc: KitRpc,
  wire: string,
  options: SendWireOptions = {},
): Promise<string> {
  try {
    return await rpc
      .sendTransaction(wire as Base64EncodedWireTransaction, {
        encoding: "base64",
        preflightCommitment: options.preflightCommitment ?? "confirmed",
        ...(options.skipPreflight !== undefined ? { skipPreflight: options.skipPreflight } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: BigInt(options.maxRetries) } : {}),
      })
      .send();
  } catch (error) {
    throw toSendError(error, options.programs);
  }
}

const COMMITMENT_RANK: Record<SolanaCommitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

export interface ConfirmOptions {
  /** The level to wait for (`confirmed` by default). */
  commitment?: SolanaCommitment;
  /** Past this block height the transaction can no longer land: BLOCKHASH_EXPIRED. */
  lastValidBlockHeight: bigint;
  programs?: ProgramsByIndex;
  pollIntervalMs?: number;
}

/**
 * Polls `getSignatureStatuses` until the transaction reaches `commitment`. Fails with the transaction's
 * error (INSUFFICIENT_FUNDS, SOLANA_TRANSACTION_FAILED, …), or BLOCKHASH_EXPIRED once the block height
 * passes `lastValidBlockHeight` without it.
 */
export async function confirmSignature(
  rpc: KitRpc,
  signature: string,
  options: ConfirmOptions,
): Promise<void> {
  const wanted = COMMITMENT_RANK[options.commitment ?? "confirmed"];
  const interval = options.pollIntervalMs ?? CONFIRMATION_POLL_INTERVAL_MS;
  const read = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw toSendError(error, options.programs);
    }
  };
  for (;;) {
    let status = await read(() => signatureStatus(rpc, signature));
    if (!status) {
      const height = await read(() => rpc.getBlockHeight({ commitment: "confirmed" }).send());
      // Read after the height: a transaction that landed by then shows now, or never will.
      if (height > options.lastValidBlockHeight) status = await read(() => signatureStatus(rpc, signature));
      if (!status && height > options.lastValidBlockHeight)
        throw new SolanaError("BLOCKHASH_EXPIRED", {
          details: `not confirmed by block height ${options.lastValidBlockHeight}`,
          signature,
        });
    }
    if (status?.err) throw toConfirmedFailure(status.err, signature, options.programs);
    if (status?.confirmationStatus && COMMITMENT_RANK[status.confirmationStatus] >= wanted) return;
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

async function signatureStatus(rpc: KitRpc, signature: string) {
  const { value } = await rpc.getSignatureStatuses([signature as Signature]).send();
  return value[0] ?? null;
}
