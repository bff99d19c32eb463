/**
 * What a call moved, read from a node's default (struct-log) trace: `debug_traceCall` as hardhat and geth
 * answer it without a tracer, for nodes without `eth_simulateV1`. The trace lists every opcode with its
 * depth, stack and memory; this follows the call frames (CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE,
 * CREATE2) to know which contract emitted each log and which frames reverted (their logs and value
 * transfers are dropped), and reads:
 * - ERC-20 `Transfer(address indexed, address indexed, uint256)` logs (LOG3, topic0 below);
 * - native value moved by the call and by each successful CALL/CALLCODE with value.
 */

/** One struct log of a default trace (geth's and hardhat's shape; stack bottom first, memory in 32-byte words). */
export interface StructLog {
  depth: number;
  op: string;
  stack?: string[];
  memory?: string[];
}

/** A default trace's answer. */
export interface StructTrace {
  failed: boolean;
  returnValue?: string;
  structLogs: StructLog[];
}

/** A move of an asset: native wei (`token` null) or an ERC-20 `Transfer` log's. Addresses lower-case. */
export interface Transfer {
  token: `0x${string}` | null;
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
}

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

const CALLS = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2"]);

interface Frame {
  /** The contract whose code runs (a CREATE's is known when it returns). */
  address: { value: `0x${string}` | null };
  transfers: (Transfer & { tokenRef?: { value: `0x${string}` | null } })[];
}

interface PendingCall {
  op: string;
  child: Frame | null;
  /** A CALL/CALLCODE's value transfer, applied if it succeeds. */
  value: { from: `0x${string}`; to: `0x${string}` | null; value: bigint } | null;
}

const word = (hex: string | undefined): bigint => (hex ? BigInt(`0x${hex.replace(/^0x/, "") || "0"}`) : 0n);
const addressOf = (hex: string | undefined): `0x${string}` =>
  `0x${word(hex).toString(16).padStart(40, "0").slice(-40)}`;
/** The n-th item from the top of a struct log's stack (0: the top). */
const top = (log: StructLog, n: number) => log.stack?.[log.stack.length - 1 - n];

/**
 * The transfers a traced call made, in order: the call's own value first, then what its frames moved;
 * nothing when the call reverted. `call` is the top-level call (from, to, value) that was traced.
 */
export function transfersOfTrace(
  trace: StructTrace,
  call: { from: `0x${string}`; to: `0x${string}` | null; value: bigint },
): Transfer[] {
  if (trace.failed) return [];
  const root: Frame = { address: { value: call.to }, transfers: [] };
  const frames: Frame[] = [root];
  const pending: (PendingCall | undefined)[] = [];
  const logs = trace.structLogs;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i] as StructLog;
    const level = log.depth - 1;
    // Back in a frame that made a call: the call has returned; the stack's top says whether it succeeded.
    while (frames.length - 1 > level) frames.pop();
    const waiting = pending[level];
    if (waiting && frames.length - 1 === level) {
      pending[level] = undefined;
      const ok = word(top(log, 0)) !== 0n;
      const frame = frames[level] as Frame;
      if (ok) {
        if (waiting.op.startsWith("CREATE") && waiting.child)
          waiting.child.address.value = addressOf(top(log, 0));
        if (waiting.value && waiting.value.value > 0n) {
          const to = waiting.value.to ?? waiting.child?.address.value;
          if (to)
            frame.transfers.push({ token: null, from: waiting.value.from, to, value: waiting.value.value });
        }
        if (waiting.child) frame.transfers.push(...waiting.child.transfers);
      }
    }
    const frame = frames[level] as Frame;
    const here = frame.address.value;
    if (CALLS.has(log.op)) {
      const next = logs[i + 1];
      const entered = next !== undefined && next.depth === log.depth + 1;
      let child: Frame | null = null;
      let value: PendingCall["value"] = null;
      if (log.op === "CREATE" || log.op === "CREATE2") {
        child = { address: { value: null }, transfers: [] };
        if (here && word(top(log, 0)) > 0n) value = { from: here, to: null, value: word(top(log, 0)) };
      } else {
        const target = addressOf(top(log, 1));
        const runsAs = log.op === "DELEGATECALL" || log.op === "CALLCODE" ? here : target;
        child = { address: { value: runsAs }, transfers: [] };
        if ((log.op === "CALL" || log.op === "CALLCODE") && here) {
          const v = word(top(log, 2));
          if (v > 0n) value = { from: here, to: log.op === "CALL" ? target : here, value: v };
        }
      }
      pending[level] = { op: log.op, child, value };
      if (entered) frames.push(child);
      continue;
    }
    if (log.op === "LOG3" && here) {
      const topic0 = `0x${word(top(log, 2)).toString(16).padStart(64, "0")}`;
      if (topic0 !== TRANSFER_TOPIC) continue;
      const offset = Number(word(top(log, 0)));
      const size = Number(word(top(log, 1)));
      if (size !== 32) continue;
      const memory = (log.memory ?? []).join("");
      const data = memory.slice(offset * 2, (offset + size) * 2);
      frame.transfers.push({
        token: here,
        from: addressOf(top(log, 3)),
        to: addressOf(top(log, 4)),
        value: word(data),
      });
    }
  }
  // A call left waiting at the end (the trace ended inside it) never returned: nothing of it counts.
  const own: Transfer[] =
    call.value > 0n && call.to ? [{ token: null, from: call.from, to: call.to, value: call.value }] : [];
  return [...own, ...root.transfers.map(({ token, from, to, value }) => ({ token, from, to, value }))];
}
