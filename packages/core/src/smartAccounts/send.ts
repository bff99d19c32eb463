// Loaded on first use, with ./client.
import { type Hex, isHex } from "viem";
import { formatUserOperationRequest } from "viem/account-abstraction";
import { SmartAccountError } from "../errors/smartAccount";
import type { SignerBase } from "../signer/types";
import type {
  LatchkeySmartAccountClient,
  PaymasterServiceInput,
  SentUserOperation,
  SmartAccountChainConfig,
} from "../types/smartAccounts";
import { paymasterClientFor, signedAuthorizationFor } from "./client";
import { decodeRevertData, revertReasonOf, toSmartAccountError } from "./toSmartAccountError";
import type { UserOperationRequest } from "./userOperation";

/** The service's (or the configured) paymaster URL, to tell its refusals from the bundler's errors. */
function paymasterUrlOf(signer: SignerBase, config: SmartAccountChainConfig): string {
  return config.paymasterUrl ?? `${signer.client.baseUrl}/rpc/v1`;
}

/**
 * Prepares (gas, nonce, paymaster; a 7702 account's first operation carries the EOA's authorization),
 * signs with the embedded wallet and sends one user operation;
 * answers its hash and the signed operation. `policyId` overrides the chain's sponsorship policy;
 * `paymasterService` (an ERC-7677 URL and its context) overrides both.
 */
export async function sendPreparedUserOperation(
  signer: SignerBase,
  client: LatchkeySmartAccountClient,
  config: SmartAccountChainConfig,
  request: UserOperationRequest,
  policyId: string | undefined,
  paymasterService?: PaymasterServiceInput,
): Promise<{ hash: Hex; request: SentUserOperation }> {
  const paymasterUrl = paymasterService?.url ?? paymasterUrlOf(signer, config);
  const sponsorship = paymasterService
    ? {
        paymaster: paymasterClientFor(signer, config, paymasterService.url),
        paymasterContext: paymasterService.context ?? {},
      }
    : policyId && policyId !== config.policyId
      ? { paymaster: paymasterClientFor(signer, config), paymasterContext: { policyId } }
      : {};
  try {
    const authorization = await signedAuthorizationFor(client);
    const prepared = (await client.prepareUserOperation({
      ...request,
      ...sponsorship,
      ...(authorization ? { authorization } : {}),
    } as Parameters<LatchkeySmartAccountClient["prepareUserOperation"]>[0])) as SentUserOperation;
    const signature = await client.account.signUserOperation(prepared);
    const signed = { ...prepared, signature } as SentUserOperation;
    const hash = await client.request(
      {
        method: "eth_sendUserOperation",
        params: [formatUserOperationRequest(signed), client.account.entryPoint.address],
      },
      { retryCount: 0 },
    );
    return { hash, request: signed };
  } catch (error) {
    throw toSmartAccountError(error, { paymasterUrl });
  }
}

/** The revert reason of a failed operation's receipt, in words where it can be decoded. */
function receiptReason(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return isHex(reason) ? decodeRevertData(reason) : (revertReasonOf(reason) ?? reason);
}

/**
 * Waits for the user operation's receipt; answers the transaction that included it. A reverted
 * operation throws USER_OPERATION_REVERTED with its reason; a failed wait, WAIT_FOR_TRANSACTION_FAILED
 * carrying the operation's hash and, when this client sent it, the signed operation (`request`).
 */
export async function waitForTransaction(
  client: LatchkeySmartAccountClient,
  hash: Hex,
  timeout: number | undefined,
  request?: SentUserOperation,
): Promise<Hex> {
  let receipt: Awaited<ReturnType<LatchkeySmartAccountClient["waitForUserOperationReceipt"]>>;
  try {
    receipt = await client.waitForUserOperationReceipt({ hash, ...(timeout ? { timeout } : {}) });
  } catch (error) {
    throw new SmartAccountError("WAIT_FOR_TRANSACTION_FAILED", {
      cause: error,
      userOperationHash: hash,
      ...(request ? { request } : {}),
      details: (error as { shortMessage?: string }).shortMessage ?? (error as Error).message,
    });
  }
  if (!receipt.success) {
    throw new SmartAccountError("USER_OPERATION_REVERTED", {
      userOperationHash: hash,
      details: receiptReason(receipt.reason),
    });
  }
  return receipt.receipt.transactionHash;
}
