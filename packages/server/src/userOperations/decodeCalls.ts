import { type Address, decodeFunctionData, getAddress, type Hex, parseAbi } from "viem";

/**
 * SimpleAccount v0.8's two ways to call out (BaseAccount in @account-abstraction/contracts@0.8:
 * `execute(address,uint256,bytes)` and `executeBatch((address,uint256,bytes)[])`), which
 * Simple7702Account inherits. Read by sponsorship (what a sponsored operation calls) and by the signing
 * policies (what a signed user operation calls).
 */
export const simpleAccountCallsAbi = parseAbi([
  "function execute(address target, uint256 value, bytes data)",
  "function executeBatch((address target, uint256 value, bytes data)[] calls)",
]);

export interface DecodedCall {
  target: Address;
  value: bigint;
  /** The 4-byte selector, lower case; null for a call without data (a plain transfer). */
  selector: Hex | null;
  data: Hex;
}

/**
 * The calls a SimpleAccount makes for `callData`, or null when `callData` is neither `execute` nor
 * `executeBatch` (then what it does cannot be checked against a policy).
 */
export function decodeCalls(callData: Hex): DecodedCall[] | null {
  let decoded: ReturnType<typeof decodeFunctionData<typeof simpleAccountCallsAbi>>;
  try {
    decoded = decodeFunctionData({ abi: simpleAccountCallsAbi, data: callData });
  } catch {
    return null;
  }
  const raw =
    decoded.functionName === "execute"
      ? [{ target: decoded.args[0], value: decoded.args[1], data: decoded.args[2] }]
      : decoded.args[0];
  return raw.map((c) => ({
    target: getAddress(c.target),
    value: c.value,
    data: c.data,
    selector: c.data.length >= 10 ? (c.data.slice(0, 10).toLowerCase() as Hex) : null,
  }));
}
