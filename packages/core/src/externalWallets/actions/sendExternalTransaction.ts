import { getAccount, sendTransaction, waitForTransactionReceipt } from "@wagmi/core";
import type { Hex } from "viem";
import { ExternalWalletError } from "../../errors/externalWallet";
import type { EoaTransactionRequest, SendExternalTransactionParameters } from "../../types/externalWallets";
import { requireWagmi } from "../config";
import { toExternalWalletError } from "../toExternalWalletError";
import type { WalletsConfig } from "../types";

/** Sends one call from the connected wallet as a plain transaction; answers its hash and what was sent. */
export async function sendExternalTransaction(
  config: WalletsConfig,
  { request, waitForTxn, timeout }: SendExternalTransactionParameters,
): Promise<{ hash: Hex; request: EoaTransactionRequest }> {
  const wagmi = requireWagmi(config);
  const account = getAccount(wagmi);
  if (account.status !== "connected" || !account.chainId)
    throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
  const chainId = request.chainId ?? account.chainId;
  if (!wagmi.chains.some((c) => c.id === chainId)) throw new ExternalWalletError("CHAIN_NOT_CONFIGURED");
  const tx = {
    to: request.to,
    ...(request.data ? { data: request.data } : {}),
    ...(request.value !== undefined ? { value: request.value } : {}),
    chainId,
  };
  try {
    const hash = await sendTransaction(wagmi, tx);
    if (waitForTxn)
      await waitForTransactionReceipt(wagmi, { hash, chainId, ...(timeout ? { timeout } : {}) });
    return { hash, request: tx };
  } catch (error) {
    throw toExternalWalletError(error);
  }
}
