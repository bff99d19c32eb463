import type { Hex } from "viem";
import { decodeCalls } from "../../userOperations/decodeCalls";
import { type OwnAccounts, ownAccounts } from "./ownAccounts";
import type { Approval, Call, SigningRequest } from "./signingRequest";

/** How deep `execute` in `execute` is read; a self-call nested deeper cannot be read. */
export const MAX_CALL_DEPTH = 4;

/** One call a signature can make, as rules read it. */
export interface PolicyCall extends Call {
  /** A permit's approval: the typed data's primary type. */
  primaryType?: string;
}

/** The calls a signature can make, and the first one whose effect cannot be read. */
export interface CallsRead {
  calls: PolicyCall[];
  /**
   * A call to one of the signer's own accounts whose data is neither `execute` nor `executeBatch`
   * (`upgradeToAndCall`, `withdrawDepositTo`, anything else), or an `execute` nested deeper than
   * MAX_CALL_DEPTH: what it runs cannot be told. Null when there is none.
   */
  unreadable: Call | null;
}

const APPROVE = "0x095ea7b3";
/** `execute(address,uint256,bytes)` and `executeBatch((address,uint256,bytes)[])` (checked in callsOf.test.ts). */
export const ACCOUNT_CALL_SELECTORS = ["0xb61d27f6", "0x34fcd5be"] as const;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * Every call a signature can make: the one function every rule, grant and value cap reads, so that no
 * path is read differently.
 *
 * A call to one of the signer's own accounts (ownAccounts.ts: its EOA, which runs `execute` and
 * `executeBatch` when it calls itself once delegated to Simple7702Account, and its SimpleAccount or
 * LatchkeySimpleAccount of salt 0, which run them for their owner; for a user operation also its
 * `sender`) is read as the calls it runs, recursively up to MAX_CALL_DEPTH; the self-call itself is not
 * a call (its value stays with the user). A self-call without data is a plain transfer to self: a call.
 * Anything else a self-call runs is `unreadable`.
 *
 * A call to another address whose data is `execute`/`executeBatch` (e.g. the signer's account of
 * another salt, which cannot be told offline) is a call, and so are the calls it would run: both are
 * read, which is stricter (such a call runs only for that account's owner or the EntryPoint).
 *
 * A permit is read as the `approve(spender, amount)` calls on its tokens.
 *
 * @example
 * callsOf({ kind: "transaction", chainId: 1, signer, to: signer, data: execute(BURN, 1n, "0x"), value: 0n });
 * // → { calls: [{ to: BURN, data: "0x", value: 1n }], unreadable: null }
 */
export function callsOf(request: SigningRequest): CallsRead {
  switch (request.kind) {
    case "transaction":
      return expandCalls([request], ownAccounts(request.signer));
    case "userOperation":
      return expandCalls(
        request.calls,
        // The zero sender stands for an account not built yet (backendSendUserOperation's first check).
        request.sender === ZERO_ADDRESS
          ? ownAccounts(request.signer)
          : new Set([...ownAccounts(request.signer), request.sender.toLowerCase() as Hex]),
      );
    case "typedData":
      return {
        calls: request.approvals.map((a) => ({
          to: a.token,
          data: approveData(a),
          value: 0n,
          primaryType: request.primaryType,
        })),
        unreadable: null,
      };
    case "several": {
      const read = request.requests.map(callsOf);
      return {
        calls: read.flatMap((r) => r.calls),
        unreadable: read.find((r) => r.unreadable)?.unreadable ?? null,
      };
    }
    default:
      return { calls: [], unreadable: null };
  }
}

/** The calls `calls` make when `own` are the accounts that run calls for the signer (see callsOf). */
export function expandCalls(calls: readonly Call[], own: OwnAccounts): CallsRead {
  const read: CallsRead = { calls: [], unreadable: null };
  const visit = (call: Call, depth: number) => {
    const self = call.to !== null && own.has(call.to.toLowerCase() as Hex);
    if (self && call.data.length <= 2) {
      read.calls.push(call);
      return;
    }
    if (!self) read.calls.push(call);
    // Most calls are no account's: the selector says so before viem decodes (and throws).
    const selector = call.data.slice(0, 10).toLowerCase();
    const inner = ACCOUNT_CALL_SELECTORS.includes(selector as never) ? decodeCalls(call.data) : null;
    if (inner && depth >= MAX_CALL_DEPTH) read.unreadable ??= call;
    else if (inner)
      for (const c of inner)
        visit({ to: c.target.toLowerCase() as Hex, data: c.data, value: c.value }, depth + 1);
    else if (self) read.unreadable ??= call;
  };
  for (const call of calls) visit(call, 0);
  return read;
}

/** `approve(spender, amount)`'s call data. */
export function approveData(a: Approval): Hex {
  return `${APPROVE}${a.spender.slice(2).padStart(64, "0")}${a.amount.toString(16).padStart(64, "0")}`;
}

/**
 * The request as `signer` signs it: what a grant's backend asks for is read before the service knows
 * which of the user's accounts signs (a transaction, a user operation, each of several).
 */
export function signedBy(request: SigningRequest, signer: string): SigningRequest {
  const lower = signer.toLowerCase() as Hex;
  if (request.kind === "transaction" || request.kind === "userOperation")
    return { ...request, signer: lower };
  if (request.kind === "several")
    return { ...request, requests: request.requests.map((r) => signedBy(r, signer)) };
  return request;
}

/** The native coin a signature can move: the sum of its calls' values. */
export function nativeValueOf(request: SigningRequest): bigint {
  return callsOf(request).calls.reduce((sum, c) => sum + c.value, 0n);
}
