import { callsOf } from "./callsOf";
import type { SigningRequest } from "./signingRequest";

/** A token (lower-case address) or the chain's native coin. */
export type TokenId = `0x${string}` | "native";

/** An amount of one token a signature can move, on one chain, and how. */
export interface TokenMove {
  chainId: number | undefined;
  token: TokenId;
  amount: bigint;
  how:
    | "value"
    | "transfer"
    | "transferFrom"
    | "approve"
    | "increaseAllowance"
    | "permit"
    | "permit2Approve"
    | "authorization";
}

/** A call (or typed data) on a capped token whose effect on it cannot be counted. */
export interface UncountedUse {
  chainId: number | undefined;
  token: `0x${string}`;
  /** The call's 4-byte selector ("0x" for none), or the typed data's primary type. */
  what: string;
}

export interface TokenMovesRead {
  moves: TokenMove[];
  uncounted: UncountedUse[];
}

const TRANSFER = "0xa9059cbb"; // transfer(address,uint256)
const TRANSFER_FROM = "0x23b872dd"; // transferFrom(address,address,uint256)
const APPROVE = "0x095ea7b3"; // approve(address,uint256)
const INCREASE_ALLOWANCE = "0x39509351"; // increaseAllowance(address,uint256)
/** Permit2's `approve(address token,address spender,uint160 amount,uint48 expiration)`, on Permit2. */
const PERMIT2_APPROVE = "0x87517c45";
/** Typed data on a token that moves nothing. */
const HARMLESS_TYPED_DATA = new Set(["CancelAuthorization"]);

/** The amount-carrying word of each token call a limit counts: which argument it is. */
const AMOUNT_WORD: Record<string, { word: number; how: TokenMove["how"] }> = {
  [TRANSFER]: { word: 1, how: "transfer" },
  [TRANSFER_FROM]: { word: 2, how: "transferFrom" },
  [APPROVE]: { word: 1, how: "approve" },
  [INCREASE_ALLOWANCE]: { word: 1, how: "increaseAllowance" },
};

function word(data: string, n: number): string | null {
  const w = data.slice(10 + n * 64, 10 + (n + 1) * 64);
  return w.length === 64 ? w : null;
}

/**
 * What a signature can move of each token, as token limits count it (features/grants/tokenLimits.ts):
 * every call it can make (callsOf.ts: a transaction, each call of a user operation and of the user's own
 * accounts' `execute`/`executeBatch`, a permit's approval) counts its native value, and on a token
 * `transfer`, `transferFrom`, `approve` and `increaseAllowance` count their amount (an approval its whole
 * amount, whatever the spender then takes); Permit2's `approve` counts on the token it names; EIP-3009
 * authorizations count their value. A call to a token in `capped` that is none of these (another
 * function, malformed arguments, no data), or typed data on it that is none of these, is `uncounted`:
 * a limit cannot tell what it moves, so it is refused.
 *
 * @example
 * tokenMovesOf({ kind: "transaction", chainId: 1, to: usdc, data: transfer(bob, 5_000_000n), value: 0n }, new Set([usdc]));
 * // → { moves: [{ chainId: 1, token: usdc, amount: 5000000n, how: "transfer" }], uncounted: [] }
 */
export function tokenMovesOf(request: SigningRequest, capped: ReadonlySet<string>): TokenMovesRead {
  const read: TokenMovesRead = { moves: [], uncounted: [] };
  const visit = (r: SigningRequest) => {
    if (r.kind === "several") {
      for (const inner of r.requests) visit(inner);
      return;
    }
    const chainId = "chainId" in r ? r.chainId : undefined;
    for (const call of callsOf(r).calls) {
      if (call.value > 0n) read.moves.push({ chainId, token: "native", amount: call.value, how: "value" });
      if (!call.to) continue;
      const data = call.data.toLowerCase();
      const selector = data.slice(0, 10);
      if (selector === PERMIT2_APPROVE) {
        const token = word(data, 0);
        const amount = word(data, 2);
        if (token?.startsWith("0".repeat(24)) && amount) {
          const t = `0x${token.slice(24)}` as const;
          if (capped.has(t))
            read.moves.push({
              chainId,
              token: t,
              amount: BigInt(`0x${amount}`),
              how: "permit2Approve",
            });
        }
      }
      const to = call.to.toLowerCase() as `0x${string}`;
      if (!capped.has(to)) continue;
      const known = AMOUNT_WORD[selector];
      const amount = known ? word(data, known.word) : null;
      if (!known || amount === null) {
        read.uncounted.push({ chainId, token: to, what: data.length >= 10 ? selector : "0x" });
        continue;
      }
      const how = "primaryType" in call && call.primaryType !== undefined ? "permit" : known.how;
      read.moves.push({ chainId, token: to, amount: BigInt(`0x${amount}`), how });
    }
    if (r.kind !== "typedData") return;
    for (const t of r.transfers ?? [])
      read.moves.push({ chainId, token: t.token, amount: t.amount, how: "authorization" });
    const on = r.verifyingContract;
    if (
      on &&
      capped.has(on) &&
      r.approvals.length === 0 &&
      !r.transfers?.length &&
      !HARMLESS_TYPED_DATA.has(r.primaryType)
    )
      read.uncounted.push({ chainId, token: on, what: r.primaryType });
  };
  visit(request);
  return read;
}
