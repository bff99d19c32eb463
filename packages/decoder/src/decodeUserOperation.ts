import type { Hex } from "viem";
import { reasonOf } from "./decodeAuthorization";
import { decodeCall, tokenReads } from "./decodeCall";
import { toAddress, toSafeNumber } from "./format";
import type { Decoded, DecodeOptions } from "./types";
import { actionWarnings } from "./warnings";

export interface DecodeUserOperationParameters {
  chainId: number | bigint;
  /** The smart account (SimpleAccount v0.8, or a Simple7702Account-delegated EOA). */
  sender: string;
  callData: Hex;
}

export type DecodeUserOperationReturnType = Extract<Decoded, { kind: "userOperation" | "unreadable" }>;

/**
 * What an ERC-4337 user operation does, call by call: the `execute`/`executeBatch` its sender runs
 * (SimpleAccount v0.8 and Simple7702Account), read recursively up to MAX_CALL_DEPTH. Call data that is
 * neither is one unknown call to the sender. Never throws.
 *
 * @example
 * await decodeUserOperation({ chainId: 8453, sender, callData: encodeFunctionData({ abi, functionName: "executeBatch", args: [[…]] }) });
 * // → { kind: "userOperation", actions: [{ kind: "erc20Approve", … }, { kind: "unknownCall", … }], … }
 */
export async function decodeUserOperation(
  userOperation: DecodeUserOperationParameters,
  options: DecodeOptions = {},
): Promise<DecodeUserOperationReturnType> {
  try {
    const chainId = toSafeNumber(userOperation.chainId);
    if (chainId === undefined) throw new Error("chainId is not a safe integer");
    const sender = toAddress(userOperation.sender);
    const data = userOperation.callData;
    if (typeof data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(data))
      throw new Error("callData is not hex");
    if (data.length === 2) return { kind: "userOperation", chainId, sender, actions: [], warnings: [] };
    // The sender calling itself: its execute/executeBatch list the operation's calls inline.
    const actions = await decodeCall(
      { chainId, options, own: new Set([sender.toLowerCase()]), readToken: tokenReads(chainId, options) },
      { to: sender, value: 0n, data },
    );
    return { kind: "userOperation", chainId, sender, actions, warnings: actionWarnings(actions, options) };
  } catch (e) {
    return { kind: "unreadable", reason: "malformedUserOperation", detail: reasonOf(e), warnings: [] };
  }
}
