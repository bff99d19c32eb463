import { sameAddress, toAddress, toBigInt, toSafeNumber, ZERO_ADDRESS } from "./format";
import type { Decoded, DecodedAuthorization, DecodeOptions } from "./types";
import { knownName } from "./warnings";

export interface DecodeAuthorizationParameters {
  /** The chain it is valid on; 0 for every chain. */
  chainId: number | bigint;
  /** The delegate: the contract whose code the account runs. */
  address: string;
  nonce: number | bigint;
}

export type DecodeAuthorizationReturnType = DecodedAuthorization | Extract<Decoded, { kind: "unreadable" }>;

/**
 * An EIP-7702 authorization: the delegate, named when `allowedDelegates` names it, and flagged
 * `delegationNotAllowed` when the caller gives an allow list that does not hold it. A delegation to the
 * zero address clears the account's code (`revoke`).
 *
 * @example
 * decodeAuthorization({ chainId: 1, address: SIMPLE_7702, nonce: 0 }, { allowedDelegates: [{ address: SIMPLE_7702, name: "Simple7702Account" }] });
 * // → { kind: "authorization", delegate: SIMPLE_7702, delegateName: "Simple7702Account", warnings: [] , … }
 */
export function decodeAuthorization(
  authorization: DecodeAuthorizationParameters,
  options: Pick<DecodeOptions, "allowedDelegates"> = {},
): DecodeAuthorizationReturnType {
  try {
    const chainId = toSafeNumber(authorization.chainId);
    if (chainId === undefined) throw new Error("chainId is not a safe integer");
    const delegate = toAddress(authorization.address);
    const nonce = toBigInt(authorization.nonce);
    const revoke = sameAddress(delegate, ZERO_ADDRESS);
    const name = options.allowedDelegates ? knownName(options.allowedDelegates, delegate) : undefined;
    const decoded: DecodedAuthorization = {
      kind: "authorization",
      chainId,
      delegate,
      nonce,
      revoke,
      warnings: [],
    };
    if (name) decoded.delegateName = name;
    if (!revoke && options.allowedDelegates && name === undefined)
      decoded.warnings.push({ kind: "delegationNotAllowed", delegate });
    return decoded;
  } catch (e) {
    return { kind: "unreadable", reason: "malformedAuthorization", detail: reasonOf(e), warnings: [] };
  }
}

export const reasonOf = (e: unknown): string =>
  e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e);
