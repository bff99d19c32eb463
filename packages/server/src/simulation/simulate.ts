import type { TokenInfoReader } from "@latchkey/decoder";
import type { PreviewBalanceChange, PreviewSimulation } from "@latchkey/protocol";
import { type Hex, hexToString } from "viem";
import { type StructTrace, TRANSFER_TOPIC, type Transfer, transfersOfTrace } from "./traceTransfers";

/**
 * Simulation (issue 46 item 2): what a transaction or a user operation's calls would do to the signer's
 * balances, asked of the chain's own node before anything is signed. It runs on the service, which has
 * the app's chain RPC configuration (`chains[].rpcUrl`): a client could lie about what a simulation said,
 * and the signing policy's `netOutflowAbove` rules are decided on it.
 *
 * The node is asked `eth_simulateV1` (with `traceTransfers`, so native value moves show as logs of
 * 0xeeee…eeee); a node without it (hardhat 2, the dev chain) is asked `debug_traceCall` with the default
 * struct-log tracer, read by traceTransfers.ts. Either way the answer is the signer's balance changes
 * (native and ERC-20, from `Transfer` logs) and whether the call reverts. A timeout, an error or a node
 * that can do neither answers `unavailable`: a simulation never blocks a signature by itself.
 */

/** A JSON-RPC request to the chain's node; rejects with a `RpcError` for an error answer. */
export type JsonRpc = (method: string, params: unknown[], signal: AbortSignal) => Promise<unknown>;

/** A node's JSON-RPC error answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON-RPC client over HTTP (fetch): one POST per request, aborted with `signal`. */
export function httpJsonRpc(url: string): JsonRpc {
  let id = 0;
  return async (method, params, signal) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      signal,
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw new RpcError(body.error.code, body.error.message);
    return body.result;
  };
}

/** One call to simulate; addresses lower-case or checksummed, `to` null for a contract creation. */
export interface SimulatedCall {
  from: `0x${string}`;
  to: `0x${string}` | null;
  data: Hex;
  value: bigint;
}

export interface SimulateParameters {
  rpc: JsonRpc;
  chainId: number;
  /** Calls run one after the other, in one block; only `eth_simulateV1` can run more than one. */
  calls: SimulatedCall[];
  /** Whose balance changes are reported (the signer's EOA, or a user operation's sender). */
  account: `0x${string}`;
  /** Symbols and decimals of the tokens moved (the decoder's cached reader). */
  tokens?: TokenInfoReader;
  /** How long the node has (default 2000 ms); past it the simulation is `timeout`. */
  timeoutMs?: number;
}

/** What a node without a method answers (EIP-1474 "method not found", and hardhat's "not supported"). */
function unsupportedMethod(e: unknown): boolean {
  return (
    e instanceof RpcError &&
    (e.code === -32601 || e.code === -32004 || /not (supported|found|available)/i.test(e.message))
  );
}

/** Simulates `calls` and answers the account's balance changes and whether they revert; never throws. */
export async function simulateCalls(params: SimulateParameters): Promise<PreviewSimulation> {
  const timeoutMs = params.timeoutMs ?? 2000;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<PreviewSimulation>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({
        status: "unavailable",
        reason: "timeout",
        message: `The node did not answer within ${timeoutMs} ms`,
      });
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(params, controller.signal), timedOut]);
  } catch (e) {
    if (controller.signal.aborted)
      return {
        status: "unavailable",
        reason: "timeout",
        message: `The node did not answer within ${timeoutMs} ms`,
      };
    return { status: "unavailable", reason: "error", message: short(e) };
  } finally {
    clearTimeout(timer);
  }
}

async function run(params: SimulateParameters, signal: AbortSignal): Promise<PreviewSimulation> {
  if (params.calls.length === 0)
    return { status: "unavailable", reason: "notApplicable", message: "There is no call to simulate" };
  try {
    return await viaSimulateV1(params, signal);
  } catch (e) {
    if (!unsupportedMethod(e)) throw e;
  }
  if (params.calls.length > 1)
    return {
      status: "unavailable",
      reason: "unsupported",
      message: "The node has no eth_simulateV1, and debug_traceCall traces one call only",
    };
  try {
    return await viaTraceCall(params, signal);
  } catch (e) {
    if (unsupportedMethod(e))
      return {
        status: "unavailable",
        reason: "unsupported",
        message: "The node has neither eth_simulateV1 nor debug_traceCall",
      };
    throw e;
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`;
const NATIVE_LOG_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";

interface SimulateV1Call {
  status: string;
  returnData?: string;
  logs?: { address: string; topics: string[]; data: string }[];
  error?: { message?: string; data?: string };
}

async function viaSimulateV1(params: SimulateParameters, signal: AbortSignal): Promise<PreviewSimulation> {
  const calls = params.calls.map((c) => ({
    from: c.from,
    ...(c.to ? { to: c.to } : {}),
    data: c.data,
    value: hex(c.value),
  }));
  const blocks = (await params.rpc(
    "eth_simulateV1",
    [{ blockStateCalls: [{ calls }], traceTransfers: true, validation: false }, "latest"],
    signal,
  )) as { calls: SimulateV1Call[] }[];
  const results = blocks[0]?.calls ?? [];
  const failed = results.find((c) => c.status !== "0x1");
  if (failed)
    return reverted(failed.returnData ?? failed.error?.data, failed.error?.message, "eth_simulateV1");
  const transfers: Transfer[] = [];
  for (const call of results)
    for (const log of call.logs ?? []) {
      if (log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
      const address = log.address.toLowerCase() as `0x${string}`;
      transfers.push({
        token: address === NATIVE_LOG_ADDRESS ? null : address,
        from: `0x${(log.topics[1] ?? "").slice(-40).toLowerCase()}`,
        to: `0x${(log.topics[2] ?? "").slice(-40).toLowerCase()}`,
        value: BigInt(log.data === "0x" ? 0 : log.data),
      });
    }
  return ok(params, transfers, "eth_simulateV1");
}

async function viaTraceCall(params: SimulateParameters, signal: AbortSignal): Promise<PreviewSimulation> {
  const [call] = params.calls as [SimulatedCall];
  const trace = (await params.rpc(
    "debug_traceCall",
    [
      { from: call.from, ...(call.to ? { to: call.to } : {}), data: call.data, value: hex(call.value) },
      "latest",
      { enableMemory: true, disableStorage: true },
    ],
    signal,
  )) as StructTrace;
  if (trace.failed) return reverted(trace.returnValue, undefined, "debug_traceCall");
  const from = call.from.toLowerCase() as `0x${string}`;
  const to = call.to ? (call.to.toLowerCase() as `0x${string}`) : null;
  return ok(params, transfersOfTrace(trace, { from, to, value: call.value }), "debug_traceCall");
}

async function ok(
  params: SimulateParameters,
  transfers: Transfer[],
  method: "eth_simulateV1" | "debug_traceCall",
): Promise<PreviewSimulation> {
  const account = params.account.toLowerCase();
  const deltas = new Map<string, bigint>();
  for (const t of transfers) {
    const asset = t.token ?? "native";
    if (t.from === account) deltas.set(asset, (deltas.get(asset) ?? 0n) - t.value);
    if (t.to === account) deltas.set(asset, (deltas.get(asset) ?? 0n) + t.value);
  }
  const balanceChanges: PreviewBalanceChange[] = [];
  for (const [asset, delta] of deltas) {
    if (delta === 0n) continue;
    if (asset === "native") {
      balanceChanges.push({ asset: "native", delta: delta.toString() });
      continue;
    }
    const info = await params.tokens?.read(params.chainId, asset as `0x${string}`).catch(() => undefined);
    balanceChanges.push({
      asset: asset as `0x${string}`,
      ...(info?.symbol !== undefined ? { symbol: info.symbol } : {}),
      ...(info?.decimals !== undefined ? { decimals: info.decimals } : {}),
      delta: delta.toString(),
    });
  }
  return { status: "ok", reverts: false, balanceChanges, method };
}

/** A revert, with the reason of an `Error(string)` revert when the contract gave one. */
function reverted(
  data: string | undefined,
  message: string | undefined,
  method: "eth_simulateV1" | "debug_traceCall",
): PreviewSimulation {
  const reason = revertReason(data) ?? (message ? message.slice(0, 200) : undefined);
  return {
    status: "ok",
    reverts: true,
    ...(reason ? { revertReason: reason } : {}),
    balanceChanges: [],
    method,
  };
}

/** The text of an `Error(string)` revert (selector 0x08c379a0), cleaned of control characters. */
export function revertReason(data: string | undefined): string | undefined {
  if (!data?.startsWith("0x08c379a0") || data.length < 138) return undefined;
  try {
    const length = Number(BigInt(`0x${data.slice(74, 138)}`));
    const text = hexToString(`0x${data.slice(138, 138 + length * 2)}`);
    return text.replace(/[\p{Cc}\p{Cf}]/gu, "\ufffd").slice(0, 200);
  } catch {
    return undefined;
  }
}

function short(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.slice(0, 200);
}
