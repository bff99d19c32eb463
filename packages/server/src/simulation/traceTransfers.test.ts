import { describe, expect, it } from "vitest";
import { type StructLog, TRANSFER_TOPIC, transfersOfTrace } from "./traceTransfers";

const w = (hex: string | bigint) =>
  (typeof hex === "bigint" ? hex.toString(16) : hex.replace(/^0x/, "")).padStart(64, "0");
const A = "0x00000000000000000000000000000000000000aa" as const; // the account
const T = "0x0000000000000000000000000000000000000010" as const; // a token
const B = "0x00000000000000000000000000000000000000bb" as const;

/** A LOG3 Transfer(from, to, value) whose data sits at memory offset 0. */
const transferLog = (depth: number, from: string, to: string, value: bigint): StructLog => ({
  depth,
  op: "LOG3",
  stack: [w(to), w(from), w(TRANSFER_TOPIC), w(32n), w(0n)],
  memory: [w(value)],
});
/** A CALL to `to` with `value` (stack: gas, to, value, in, inSize, out, outSize; top last). */
const call = (depth: number, to: string, value: bigint): StructLog => ({
  depth,
  op: "CALL",
  stack: [w(0n), w(0n), w(0n), w(0n), w(value), w(to), w(100000n)],
});
/** The op after a call returns: its success flag on top. */
const after = (depth: number, ok: boolean): StructLog => ({ depth, op: "ISZERO", stack: [w(ok ? 1n : 0n)] });

describe("transfersOfTrace", () => {
  it("keeps what succeeded and drops what a reverted frame did", () => {
    const structLogs: StructLog[] = [
      { depth: 1, op: "PUSH1", stack: [] },
      call(1, T, 0n), // A's account calls the token: it moves 5 to B
      transferLog(2, A, B, 5n),
      after(1, true),
      call(1, T, 0n), // a second call that reverts: its Transfer does not count
      transferLog(2, A, B, 7n),
      { depth: 2, op: "REVERT", stack: [] },
      after(1, false),
      call(1, B, 9n), // value to an EOA (no frame): counts when it succeeds
      after(1, true),
      { depth: 1, op: "STOP", stack: [] },
    ];
    expect(transfersOfTrace({ failed: false, structLogs }, { from: A, to: A, value: 0n })).toEqual([
      { token: T, from: A, to: B, value: 5n },
      { token: null, from: A, to: B, value: 9n },
    ]);
  });

  it("answers nothing for a call that reverted", () => {
    const structLogs = [transferLog(1, A, B, 5n)];
    expect(transfersOfTrace({ failed: true, structLogs }, { from: A, to: T, value: 1n })).toEqual([]);
  });
});
