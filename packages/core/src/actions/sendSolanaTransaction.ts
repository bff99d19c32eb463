import { toSolanaSigner } from "../accounts/toSolanaSigner";
import type { SignerApiError, SignerError } from "../errors";
import { SolanaError } from "../errors/solana";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import type { SolanaInstructionInput, SolanaRpcLike, SolanaSigner } from "../types/solana";

/** What `sendSolanaTransaction` takes: instructions or a transfer, and optionally who signs, where, and who pays. */
export interface SendSolanaTransactionParameters {
  /** @solana/kit `Instruction`s or @solana/web3.js v1 `TransactionInstruction`s (programId, keys, data). */
  instructions?: readonly SolanaInstructionInput[];
  /** Or a transfer of `amount` lamports (System program) from the user to `toAddress`. */
  transfer?: { toAddress: string; amount: bigint | number };
  /** The account that signs (default: `toSolanaSigner(signer)`, the user's embedded Solana account). */
  signer?: SolanaSigner;
  /** An RPC URL or a @solana/kit `Rpc` (default: `SignerOptions.solana.rpcUrl`). */
  connection?: string | SolanaRpcLike;
  /** Sponsor the fee through the Latchkey service under this policy (default: `SignerOptions.solana.policyId`). */
  policyId?: string;
  /**
   * `true`: must be sponsored (an error without a policy id); `false`: never sponsored, even when a policy
   * is configured; by default sponsored when a policy id is known.
   */
  sponsored?: boolean;
}
/** The transaction's signature (base58), once confirmed at `confirmed`. */
export type SendSolanaTransactionReturnType = { signature: string };
/** The errors `sendSolanaTransaction` may throw (discriminate on `name` and `code`). */
export type SendSolanaTransactionErrorType =
  | SignerError<"NOT_AUTHENTICATED" | "NO_SOLANA_ADDRESS">
  | SolanaError
  | SignerApiError;

/**
 * Sends a Solana transaction from the user's embedded account and waits until it is confirmed: the
 * latest blockhash (at `confirmed`), a v0 message with the user as fee payer, the user's signature, then
 * `sendTransaction` and `getSignatureStatuses` polling (HTTP only). With a policy id the service's fee
 * payer pays the fee: the transaction goes to the service first, and what it answers is checked to hold
 * the same instructions before the user signs. An expired blockhash is retried once with a fresh one.
 * Fails with a `SolanaError`: SOLANA_NOT_CONFIGURED (no `solana()` of `@latchkey/core/solana` in the
 * signer's options), SOLANA_CONNECTION_MISSING, SOLANA_POLICY_MISSING, INSUFFICIENT_FUNDS,
 * INSUFFICIENT_FUNDS_FOR_RENT, BLOCKHASH_EXPIRED, SPONSORSHIP_REFUSED (with the service's `reason`), …
 *
 * @solana/kit is loaded on the first call (through `solana()`), so an app that never sends does not ship it.
 *
 * @example
 * const { signature } = await sendSolanaTransaction(signer, {
 *   transfer: { toAddress: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", amount: 1_000_000n },
 *   connection: "https://api.devnet.solana.com",
 * });
 */
export async function sendSolanaTransaction(
  signer: SignerBase,
  params: SendSolanaTransactionParameters,
): Promise<SendSolanaTransactionReturnType> {
  if ((params.instructions === undefined) === (params.transfer === undefined))
    throw new SolanaError("SOLANA_INVALID_INPUT", {
      details: "pass exactly one of instructions or transfer",
    });
  let solanaSigner = params.signer;
  if (!solanaSigner) {
    await requireUser(signer);
    solanaSigner = toSolanaSigner(signer);
  }
  const solana = signer._internal.options.solana;
  if (typeof solana?.load !== "function")
    throw new SolanaError("SOLANA_NOT_CONFIGURED", {
      ...(solana ? { details: "solana must be made by solana() of @latchkey/core/solana" } : {}),
    });
  const defaults = solana;
  const connection = params.connection ?? defaults.rpcUrl;
  if (!connection) throw new SolanaError("SOLANA_CONNECTION_MISSING");
  const policyId = params.policyId ?? defaults.policyId;
  if (params.sponsored === true && !policyId) throw new SolanaError("SOLANA_POLICY_MISSING");
  const { sendSolana } = await solana.load();
  return sendSolana({
    signer: solanaSigner,
    ...(params.instructions ? { instructions: params.instructions } : {}),
    ...(params.transfer ? { transfer: params.transfer } : {}),
    connection,
    policyId: params.sponsored === false ? undefined : policyId,
    client: signer.client,
  });
}
