import type { Hex } from "viem";
import { decodeAuthorization, reasonOf } from "./decodeAuthorization";
import { decodeCall, tokenReads } from "./decodeCall";
import { toAddress, toBigInt, toSafeNumber } from "./format";
import type { Decoded, DecodedAuthorization, DecodeOptions } from "./types";
import { actionWarnings } from "./warnings";

export interface DecodeTransactionParameters {
  chainId: number | bigint;
  /** The account that signs. */
  from: string;
  /** null or absent: a contract creation. */
  to?: string | null;
  value?: bigint | number | string;
  data?: Hex;
  /** EIP-7702 authorizations (viem's `authorizationList`; `contractAddress` read as `address`). */
  authorizationList?: readonly {
    chainId: number | bigint;
    address?: string;
    contractAddress?: string;
    nonce: number | bigint;
  }[];
}

export type DecodeTransactionReturnType = Extract<Decoded, { kind: "transaction" | "unreadable" }>;

/**
 * What an EVM transaction does: its call (a transfer, a token call, or, when the account calls itself
 * as a 7702-delegated account does, each call its `execute`/`executeBatch` runs), its authorizations,
 * and their warnings. Token metadata comes from `options.tokens` when given. Never throws: malformed
 * input is `unreadable`.
 *
 * @example
 * await decodeTransaction({ chainId: 1, from, to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, 1_500_000n] }) }, { tokens });
 * // → { kind: "transaction", actions: [{ kind: "erc20Transfer", token: { symbol: "USDC", decimals: 6, … }, amount: 1500000n, … }], … }
 */
export async function decodeTransaction(
  transaction: DecodeTransactionParameters,
  options: DecodeOptions = {},
): Promise<DecodeTransactionReturnType> {
  try {
    const chainId = toSafeNumber(transaction.chainId);
    if (chainId === undefined) throw new Error("chainId is not a safe integer");
    const from = toAddress(transaction.from);
    const to = transaction.to === undefined || transaction.to === null ? null : toAddress(transaction.to);
    const value = transaction.value === undefined ? 0n : toBigInt(transaction.value);
    const data = transaction.data ?? "0x";
    if (typeof data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new Error("data is not hex");
    const actions = await decodeCall(
      { chainId, options, own: new Set([from.toLowerCase()]), readToken: tokenReads(chainId, options) },
      { to, value, data },
    );
    const authorizations: DecodedAuthorization[] = [];
    for (const a of transaction.authorizationList ?? []) {
      const decoded = decodeAuthorization(
        { chainId: a.chainId, address: a.address ?? a.contractAddress ?? "", nonce: a.nonce },
        options,
      );
      if (decoded.kind === "unreadable") throw new Error(`authorization: ${decoded.detail}`);
      authorizations.push(decoded);
    }
    return {
      kind: "transaction",
      chainId,
      from,
      actions,
      authorizations,
      warnings: [...actionWarnings(actions, options), ...authorizations.flatMap((a) => a.warnings)],
    };
  } catch (e) {
    return { kind: "unreadable", reason: "malformedTransaction", detail: reasonOf(e), warnings: [] };
  }
}
