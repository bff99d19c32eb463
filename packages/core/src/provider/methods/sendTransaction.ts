import { isAddressEqual } from "viem";
import { sendUserOperation } from "../../actions/sendUserOperation";
import { invalidParams, ProviderRpcError, ProviderRpcErrorCode } from "../errors";
import type { MethodHandler } from "../types";
import { asAddress, asChainId, asHex, asObject, asQuantity } from "./params";

/**
 * `eth_sendTransaction` `[{from?, to, data?, value?, chainId?}]`: on a plain chain (no bundler), a
 * transaction from the EOA (see `sendPlainTransaction`); on a smart-account chain, one user operation from the smart
 * account calling `to`, on the transaction's chain (the current one by default). Answers once the
 * operation is in a block, with the hash of the transaction that included it. Gas fields are ignored
 * (the bundler prices the operation); contract creation (no `to`) is not supported.
 */
export const ethSendTransaction: MethodHandler = async (ctx, [param]) => {
  const tx = asObject(param, "the transaction");
  const chainId = tx.chainId === undefined ? ctx.chainId() : asChainId(tx.chainId);
  const config = ctx.chain(chainId);
  if (!config.bundlerUrl) {
    // The plain wallet: a transaction from the EOA (loaded on first use, with viem's wallet client).
    const account = await ctx.account(chainId);
    if (tx.from !== undefined && tx.from !== null && !isAddressEqual(asAddress(tx.from, "from"), account)) {
      throw new ProviderRpcError(
        ProviderRpcErrorCode.UNAUTHORIZED,
        `Transactions are sent from ${account}, not from ${String(tx.from)}`,
      );
    }
    const to = tx.to === undefined || tx.to === null ? undefined : asAddress(tx.to, "to");
    const { sendPlainTransaction } = await import("./plainTransaction");
    return sendPlainTransaction(ctx, config, tx, to);
  }
  if (tx.to === undefined || tx.to === null) {
    throw invalidParams("`to` is required: the smart account calls an address, it cannot create a contract");
  }
  const target = asAddress(tx.to, "to");
  const rawData = tx.data ?? tx.input;
  const data = rawData === undefined || rawData === null ? undefined : asHex(rawData, "data");
  const value = tx.value === undefined || tx.value === null ? undefined : asQuantity(tx.value, "value");
  const account = await ctx.account(chainId);
  if (tx.from !== undefined && tx.from !== null && !isAddressEqual(asAddress(tx.from, "from"), account)) {
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNAUTHORIZED,
      `Transactions are sent from the smart account ${account}, not from ${String(tx.from)}`,
    );
  }
  const { hash } = await sendUserOperation(ctx.signer, {
    uo: { target, ...(data ? { data } : {}), ...(value !== undefined ? { value } : {}) },
    waitForTxn: true,
    chainId,
  });
  return hash;
};
