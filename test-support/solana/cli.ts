// The local Solana node as a process, for `npm start`, benchmarks and tests in other processes:
//
//   node --import tsx test-support/solana/cli.ts [--port P] [--host H]
//
// Prints one JSON line once it listens:
//   {"event":"ready","url":"http://127.0.0.1:8899","wsUrl":"ws://127.0.0.1:8899"}
// then reads newline-delimited JSON commands on stdin:
//   {"airdrop":"<base58 address>","lamports":"1000000000"} → {"event":"airdropped","address":…,"lamports":…,"signature":…}
//   anything else, or a failed command                    → {"event":"error","message":…}
// Stops on SIGINT, SIGTERM and at the end of stdin (keep stdin open: spawn it with a pipe; a stdin of
// /dev/null, as with `stdio: "ignore"`, is not taken as the end).
import { fstatSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { isAddress } from "@solana/kit";
import { type SolanaRpcNode, startSolanaRpc } from "./rpc.js";

/** One stdout line of JSON. */
function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function parseOptions(): { port: number; host: string } {
  const { values } = parseArgs({ options: { port: { type: "string" }, host: { type: "string" } } });
  const port = Number(values.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port: not a port: ${values.port}`);
  return { port, host: values.host ?? "127.0.0.1" };
}

/** The node's own `requestAirdrop`, so the airdrop has a signature and a status like any transaction. */
async function airdrop(node: SolanaRpcNode, to: string, amount: bigint): Promise<string> {
  const response = await fetch(node.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [to, Number(amount)] }),
  });
  const body = (await response.json()) as { result?: string; error?: { message: string } };
  if (!body.result) throw new Error(body.error?.message ?? "no answer");
  return body.result;
}

/** Runs one stdin command and returns the event that answers it. */
async function runCommand(node: SolanaRpcNode, line: string): Promise<Record<string, unknown>> {
  const command = JSON.parse(line) as Record<string, unknown>;
  if (typeof command.airdrop === "string") {
    const to = command.airdrop;
    if (!isAddress(to)) throw new Error(`not a Solana address: ${to}`);
    if (typeof command.lamports !== "string" || !/^[1-9]\d*$/.test(command.lamports))
      throw new Error('"lamports" must be a positive decimal string');
    // JSON-RPC carries lamports as a number: above 2^53 it would be rounded.
    if (BigInt(command.lamports) > BigInt(Number.MAX_SAFE_INTEGER))
      throw new Error('"lamports" is too large');
    const signature = await airdrop(node, to, BigInt(command.lamports));
    return { event: "airdropped", address: to, lamports: command.lamports, signature };
  }
  throw new Error(`unknown command: ${line}`);
}

/** Answers stdin's commands one at a time, in order; calls `onEnd` at the end of stdin. */
function serveCommands(node: SolanaRpcNode, onEnd: () => void): void {
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(() =>
      runCommand(node, line).then(emit, (error: unknown) =>
        emit({ event: "error", message: error instanceof Error ? error.message : String(error) }),
      ),
    );
  });
  lines.on("close", () => {
    if (!stdinIsNull()) void queue.then(onEnd);
  });
}

/** stdin is /dev/null (a character device that is no terminal): its end means nothing. */
function stdinIsNull(): boolean {
  try {
    return fstatSync(0).isCharacterDevice() && !process.stdin.isTTY;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const node = await startSolanaRpc(parseOptions());
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void node.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  emit({ event: "ready", url: node.url, wsUrl: node.wsUrl });
  process.stderr.write(
    `Local Solana node ${node.url} (litesvm): ready in ${Math.round(performance.now() - started)} ms\n`,
  );
  serveCommands(node, shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The local Solana node did not start: ${error instanceof Error ? error.message : error}\n`,
  );
  process.exit(1);
});
