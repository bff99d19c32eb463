import type { Hex } from "viem";
import type { SignerError } from "../errors";
import { ExternalWalletError } from "../errors/externalWallet";
import type { SmartAccountError } from "../errors/smartAccount";
import { loadExternalWallets } from "../externalWallets/load";
import { withSigningConfirmation } from "../signer/confirmation";
import type { SignerBase } from "../signer/types";
import { chainConfigFor } from "../smartAccounts/chainConfig";
import { toUserOperationRequest } from "../smartAccounts/userOperation";
import type { EoaTransactionRequest } from "../types/externalWallets";
import type { PaymasterServiceInput, SentUserOperation, UserOperationInput } from "../types/smartAccounts";
import { getSmartAccountClient } from "./getSmartAccountClient";

/** What `sendUserOperation` takes (spec §3 "Send-user-operation input", §7 "Client actions"). */
export interface SendUserOperationParameters {
  /** One call `{target, data, value}`, a batch of calls (one atomic operation), or hex call data. */
  uo: UserOperationInput;
  /** Wait until the operation is in a block and answer the transaction hash (else the operation hash). */
  waitForTxn?: boolean;
  /** A configured chain's id; the first configured chain by default. */
  chainId?: number;
  /** A sponsorship policy for this operation, in place of the chain's. */
  policyId?: string;
  /** An ERC-7677 paymaster (URL and context) for this operation, in place of the chain's sponsorship. */
  paymasterService?: PaymasterServiceInput;
  /** How long `waitForTxn` waits, in ms (viem's default otherwise). */
  timeout?: number;
  /**
   * Show the operation to the user before it is signed (the modal's confirmation step), whatever the
   * app's `ui.confirmTransactions`; a refusal is a SignerError USER_REJECTED.
   */
  confirm?: boolean;
}
/**
 * The operation's hash (its transaction's hash with `waitForTxn`) and the signed operation sent; from an
 * external wallet, the transaction's hash and the transaction (`kind: "transaction"`).
 */
export type SendUserOperationReturnType =
  | { kind: "userOperation"; hash: Hex; request: SentUserOperation }
  | { kind: "transaction"; hash: Hex; request: EoaTransactionRequest };
/** The errors `sendUserOperation` may throw (discriminate on `code`). */
export type SendUserOperationErrorType =
  | SignerError<"NOT_AUTHENTICATED" | "USER_REJECTED" | "CONFIRMATION_UNAVAILABLE">
  | SmartAccountError
  | ExternalWalletError;

/**
 * Sends a user operation from the signed-in user's smart account: prepared by the bundler (gas, nonce),
 * sponsored when the chain or the call names a policy, signed by the embedded wallet. The first
 * operation deploys the account. Fails with a `SmartAccountError`: no chain configured (missing client),
 * a revert with its reason, no funds for gas, a refused sponsorship, or a failed wait that carries the
 * operation's hash.
 *
 * Connected to an external wallet (and not signed in with the embedded one), a single call is sent from
 * the wallet as a plain transaction; a batch or hex call data is refused (EOA_USER_OPERATION_UNSUPPORTED,
 * spec §5).
 *
 * @example
 * const { hash } = await sendUserOperation(signer, {
 *   uo: { target: counter, data: encodeFunctionData({ abi, functionName: "increment" }) },
 *   waitForTxn: true,
 * });
 */
export async function sendUserOperation(
  signer: SignerBase,
  params: SendUserOperationParameters,
): Promise<SendUserOperationReturnType> {
  const state = signer.store.getState();
  if (state.externalWallet.status === "connected" && !state.user) {
    const { uo } = params;
    if (typeof uo === "string" || Array.isArray(uo))
      throw new ExternalWalletError("EOA_USER_OPERATION_UNSUPPORTED");
    const call = uo as Exclude<typeof uo, string | readonly unknown[]>;
    const sent = await (await loadExternalWallets(signer)).sendTransaction({
      request: {
        to: call.target,
        ...(call.data ? { data: call.data } : {}),
        ...(call.value !== undefined ? { value: call.value } : {}),
        ...(params.chainId !== undefined ? { chainId: params.chainId } : {}),
      },
      waitForTxn: params.waitForTxn ?? false,
      timeout: params.timeout,
    });
    return { kind: "transaction", ...sent };
  }
  const client = await getSmartAccountClient(signer, { chainId: params.chainId });
  const config = chainConfigFor(signer, params.chainId);
  const { sendPreparedUserOperation, waitForTransaction } = await import("../smartAccounts/send");
  const sent = await withSigningConfirmation(signer, params.confirm, () =>
    sendPreparedUserOperation(
      signer,
      client,
      config,
      toUserOperationRequest(params.uo),
      params.policyId,
      params.paymasterService,
    ),
  );
  if (!params.waitForTxn) return { kind: "userOperation", ...sent };
  return {
    kind: "userOperation",
    hash: await waitForTransaction(client, sent.hash, params.timeout, sent.request),
    request: sent.request,
  };
}
