import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { Address, Blockhash } from "@solana/kit";
import type { ConfiguredSolana } from "../../../context";
import { rpcError } from "../jsonRpc";

/** How long the node may take to answer. */
const NODE_TIMEOUT_MS = 10_000;
/**
 * The rent-exempt minimum of an account without data (Solana's default rent). A fee may empty the fee
 * payer's account, but not leave it between 0 and this: the runtime refuses the transaction then.
 */
const RENT_EXEMPT_MINIMUM = 890_880n;

/**
 * With a Solana node configured (`solana.rpcUrl`): the transaction's blockhash must still be valid
 * (commitment processed), else the client must build it again; and the fee payer's balance must cover the
 * fee and stay rent-exempt (or reach 0), else the operator must fund it. A durable-nonce transaction has no blockhash to check (`blockhash`
 * undefined). A node that does not answer: unavailable, try again.
 */
export async function checkOnNode(
  solana: ConfiguredSolana,
  params: { blockhash: string | undefined; feePayer: string; fee: bigint },
): Promise<void> {
  const { blockhash, feePayer, fee } = params;
  const abortSignal = AbortSignal.timeout(NODE_TIMEOUT_MS);
  let valid: boolean;
  let balance: bigint;
  try {
    [valid, balance] = await Promise.all([
      blockhash === undefined
        ? true
        : solana.rpc
            .isBlockhashValid(blockhash as Blockhash, { commitment: "processed" })
            .send({ abortSignal })
            .then((r) => r.value),
      solana.rpc
        .getBalance(feePayer as Address, { commitment: "processed" })
        .send({ abortSignal })
        .then((r) => BigInt(r.value)),
    ]);
  } catch {
    // A refused connection, a timeout, an HTTP or JSON-RPC error: the node's own words may carry its URL
    // (and a key in it), so they are never passed on.
    throw rpcError(
      RpcErrorCode.RESOURCE_UNAVAILABLE,
      SponsorshipErrorCode.CHAIN_UNAVAILABLE,
      "The Solana node did not answer; try again",
    );
  }
  if (!valid)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.SOLANA_BLOCKHASH_EXPIRED,
      "The transaction's blockhash is no longer valid: build it again with a recent blockhash",
      { blockhash },
    );
  const left = balance - fee;
  if (left < 0n || (left > 0n && left < RENT_EXEMPT_MINIMUM))
    throw rpcError(
      RpcErrorCode.RESOURCE_UNAVAILABLE,
      SponsorshipErrorCode.SOLANA_SPONSORSHIP_UNAVAILABLE,
      `The service's fee payer cannot pay this fee (${fee} lamports) now; its operator must fund ${feePayer}`,
      { feePayer },
    );
}
