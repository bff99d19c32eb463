// The local chain stack as a process, for `npm start`, benchmarks and tests in other processes:
//
//   node --import tsx test-support/chain/cli.ts [--port P] [--bundler-port Q] [--no-bundler] [--paymaster-signer 0x…]…
//     [--second-chain ID [--second-port R]]
//
// Prints one JSON line once everything answers:
//   {"event":"ready","chainId":31337,"rpcUrl":…,"bundlerUrl":…,"entryPoint":…,"accountFactory":…,"paymaster":…,"counter":…,
//    "secondChain":{"chainId":ID,"rpcUrl":…}}   (secondChain with --second-chain: a bare node, a network to switch to)
// (and a human line with the start time on stderr), then reads newline-delimited JSON commands on stdin:
//   {"addPaymasterSigner":"0x…"}       → {"event":"paymasterSignerAdded","signer":"0x…"}
//   {"fund":"0x…","wei":"123"}         → {"event":"funded"}
//   anything else, or a failed command → {"event":"error","message":…}
// Stops hardhat and alto on SIGINT, SIGTERM and at the end of stdin (keep stdin open: spawn it with a pipe;
// a stdin of /dev/null, as with `stdio: "ignore"`, is not taken as the end).
import { fstatSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { type Address, isAddress } from "viem";
import {
  type ChainStack,
  type ChainStackOptions,
  type LocalNode,
  startChainStack,
  startLocalNode,
} from "./index.js";

/** One stdout line of JSON. */
function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function parseOptions(): ChainStackOptions & { secondChain?: number; secondPort?: number } {
  const { values } = parseArgs({
    options: {
      "second-chain": { type: "string" },
      "second-port": { type: "string" },
      port: { type: "string" },
      "bundler-port": { type: "string" },
      "no-bundler": { type: "boolean" },
      "paymaster-signer": { type: "string", multiple: true },
    },
  });
  const port = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0 || n > 65_535) throw new Error(`--${name}: not a port: ${value}`);
    return n;
  };
  const signers = values["paymaster-signer"] ?? [];
  for (const s of signers) if (!isAddress(s)) throw new Error(`--paymaster-signer: not an address: ${s}`);
  const second = values["second-chain"] === undefined ? undefined : Number(values["second-chain"]);
  if (second !== undefined && (!Number.isInteger(second) || second <= 0))
    throw new Error(`--second-chain: not a chain id: ${values["second-chain"]}`);
  return {
    ...(second ? { secondChain: second, secondPort: port("second-port", values["second-port"]) } : {}),
    port: port("port", values.port),
    bundlerPort: port("bundler-port", values["bundler-port"]),
    bundler: !values["no-bundler"],
    paymasterSigners: signers as Address[],
  };
}

/** Runs one stdin command and returns the event that answers it. */
async function runCommand(stack: ChainStack, line: string): Promise<Record<string, unknown>> {
  const command = JSON.parse(line) as Record<string, unknown>;
  if (typeof command.addPaymasterSigner === "string") {
    const signer = command.addPaymasterSigner;
    if (!isAddress(signer)) throw new Error(`not an address: ${signer}`);
    await stack.addPaymasterSigner(signer);
    return { event: "paymasterSignerAdded", signer };
  }
  if (typeof command.fund === "string") {
    const to = command.fund;
    if (!isAddress(to)) throw new Error(`not an address: ${to}`);
    if (typeof command.wei !== "string" || !/^\d+$/.test(command.wei))
      throw new Error('"wei" must be a decimal string');
    await stack.fund(to, BigInt(command.wei));
    return { event: "funded" };
  }
  throw new Error(`unknown command: ${line}`);
}

/** Answers stdin's commands one at a time, in order; calls `onEnd` at the end of stdin. */
function serveCommands(stack: ChainStack, onEnd: () => void): void {
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(() =>
      runCommand(stack, line).then(emit, (error: unknown) =>
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
  const { secondChain, secondPort, ...options } = parseOptions();
  const [stack, second] = await Promise.all([
    startChainStack(options),
    secondChain ? startLocalNode({ chainId: secondChain, port: secondPort }) : undefined,
  ] as const);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void Promise.all([stack.stop(), (second as LocalNode | undefined)?.stop()]).finally(() =>
      process.exit(0),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  const { chainId, rpcUrl, bundlerUrl, entryPoint, accountFactory, paymaster, counter, timings } = stack;
  emit({
    event: "ready",
    chainId,
    rpcUrl,
    bundlerUrl,
    entryPoint,
    accountFactory,
    paymaster,
    counter,
    ...(second ? { secondChain: { chainId: second.chainId, rpcUrl: second.rpcUrl } } : {}),
  });
  process.stderr.write(
    `Local chain ${rpcUrl}${bundlerUrl ? `, bundler ${bundlerUrl}` : ""}: ready in ${timings.totalMs} ms ` +
      `(hardhat ${timings.hardhatMs}, deployments ${timings.deployMs}, alto ${timings.bundlerMs})\n`,
  );
  serveCommands(stack, shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`The local chain did not start: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
});
