import { fstatSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { isAddress as isSolanaAddress } from "@solana/kit";
import { type Address, isAddress } from "viem";
import { DEFAULT_PORTS, type DevnetPorts, startDevnet } from "./devnet.js";
import { instructions, serviceConfig, sponsorCommand } from "./print.js";
import { addPaymasterSigner, fundFeePayer } from "./sponsor.js";

const DEFAULT_RPC_URL = `http://127.0.0.1:${DEFAULT_PORTS.chain}`;
const DEFAULT_SOLANA_URL = `http://127.0.0.1:${DEFAULT_PORTS.solana}`;

const START_HELP = `Usage: latchkey-devnet [options]
       npx @latchkey/devnet [options]

Start a local dev stack for Latchkey and print the settings to paste into the service and the app:
an EVM chain (hardhat, chain id 31337) with EntryPoint v0.8, the account factories, Simple7702Account
and a verifying paymaster; the alto bundler; a Solana node (litesvm behind JSON-RPC); and a local
WalletConnect relay. It runs until Ctrl+C, then stops everything it started. Dev only: the chain's
accounts are hardhat's well-known keys.

Options:
  --chain-port <n>           The EVM chain (default ${DEFAULT_PORTS.chain})
  --bundler-port <n>         The bundler (default ${DEFAULT_PORTS.bundler})
  --solana-port <n>          The Solana node, HTTP and WebSocket (default ${DEFAULT_PORTS.solana})
  --relay-port <n>           The WalletConnect relay (default ${DEFAULT_PORTS.relay})
  --ports=auto               Free ports for everything instead of the defaults
  --second-chain <id>        Also a bare EVM chain with this id (a network for wallets to switch to)
  --second-chain-port <n>    Its port (default ${DEFAULT_PORTS.secondChain})
  --paymaster-signer <0x…>   Make the paymaster accept this signer at start (repeatable): the
                             service's, from \`latchkey paymaster-signer\`
  --solana-fee-payer <addr>  Airdrop 1,000 SOL to this address at start (repeatable): the service's
                             fee payer, from \`latchkey solana-fee-payer\`
  --write-config <file>      Also write the service's config (chains, solana) to this JSON file
  --json                     Print one JSON line with every URL and address (the text goes to stderr),
                             then take commands as JSON lines on stdin (for scripts; see below)
  -h, --help                 This help

Commands:
  sponsor                    Register the service's keys with a running devnet (see sponsor --help)

With --json, stdin takes one JSON command a line, answered by one JSON line on stdout:
  {"paymasterSigner":"0x…","solanaFeePayer":"<base58>"} (either or both) → {"event":"sponsored"}
  a failed or unknown command                             → {"event":"error","message":…}
and the end of stdin (the script that started it is gone) stops the devnet.
`;

const SPONSOR_HELP = `Usage: latchkey-devnet sponsor [options]

Let a service sponsor on a running devnet: the paymaster accepts its signer, and its Solana fee payer
gets 1,000 SOL. Run it in the service's folder, where its database and master key are:

  npx @latchkey/devnet sponsor --paymaster-signer "$(npx latchkey paymaster-signer --dev)" \\
    --solana-fee-payer "$(npx latchkey solana-fee-payer --dev)"

Options:
  --paymaster-signer <0x…>   The service's paymaster signer (repeatable)
  --solana-fee-payer <addr>  The service's Solana fee payer (repeatable)
  --rpc-url <url>            The devnet's EVM chain (default ${DEFAULT_RPC_URL})
  --solana-url <url>         The devnet's Solana node (default ${DEFAULT_SOLANA_URL})
  -h, --help                 This help
`;

/** A usage mistake: printed with a hint to --help, exit code 2. */
class UsageError extends Error {}

function port(name: string, value: string | undefined, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > 65_535) throw new UsageError(`--${name}: not a port: ${value}`);
  return n;
}

function evmAddresses(values: string[] | undefined): Address[] {
  for (const v of values ?? [])
    if (!isAddress(v)) throw new UsageError(`--paymaster-signer: not an address: ${v}`);
  return (values ?? []) as Address[];
}

function solanaAddresses(values: string[] | undefined): string[] {
  for (const v of values ?? [])
    if (!isSolanaAddress(v)) throw new UsageError(`--solana-fee-payer: not a Solana address: ${v}`);
  return values ?? [];
}

function url(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (!URL.canParse(value)) throw new UsageError(`--${name}: not a URL: ${value}`);
  return value;
}

async function start(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "chain-port": { type: "string" },
      "bundler-port": { type: "string" },
      "solana-port": { type: "string" },
      "relay-port": { type: "string" },
      ports: { type: "string" },
      "second-chain": { type: "string" },
      "second-chain-port": { type: "string" },
      "paymaster-signer": { type: "string", multiple: true },
      "solana-fee-payer": { type: "string", multiple: true },
      "write-config": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(START_HELP);
    return 0;
  }
  if (values.ports !== undefined && values.ports !== "auto")
    throw new UsageError(`--ports: only --ports=auto is known, not ${values.ports}`);
  const auto = values.ports === "auto";
  const fallback = (n: number) => (auto ? undefined : n);
  const secondChainId = values["second-chain"] === undefined ? undefined : Number(values["second-chain"]);
  if (secondChainId !== undefined && (!Number.isInteger(secondChainId) || secondChainId <= 0))
    throw new UsageError(`--second-chain: not a chain id: ${values["second-chain"]}`);
  const ports: DevnetPorts = {
    chain: port("chain-port", values["chain-port"], fallback(DEFAULT_PORTS.chain)),
    bundler: port("bundler-port", values["bundler-port"], fallback(DEFAULT_PORTS.bundler)),
    solana: port("solana-port", values["solana-port"], fallback(DEFAULT_PORTS.solana)),
    relay: port("relay-port", values["relay-port"], fallback(DEFAULT_PORTS.relay)),
    secondChain: port("second-chain-port", values["second-chain-port"], fallback(DEFAULT_PORTS.secondChain)),
  };
  const paymasterSigners = evmAddresses(values["paymaster-signer"]);
  const solanaFeePayers = solanaAddresses(values["solana-fee-payer"]);
  const text = values.json ? process.stderr : process.stdout;

  const started = performance.now();
  const devnet = await startDevnet({ ports, paymasterSigners, solanaFeePayers, secondChainId });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write("Stopping the devnet…\n");
    void devnet.stop().finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.once("SIGHUP", stop);

  const { stop: _stop, ...info } = devnet;
  if (values["write-config"])
    writeFileSync(values["write-config"], `${JSON.stringify(serviceConfig(info), null, 2)}\n`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ event: "ready", ...info })}\n`);
    serveCommands(info.chain.rpcUrl, info.solana.rpcUrl, stop);
  }
  text.write(
    instructions(info, {
      startedMs: performance.now() - started,
      configFile: values["write-config"],
      sponsor: sponsorCommand(info, { rpcUrl: DEFAULT_RPC_URL, solanaUrl: DEFAULT_SOLANA_URL }),
      registered: [...paymasterSigners, ...solanaFeePayers],
    }),
  );
  return -1;
}

/** One stdin command (--json): register a service's keys. */
async function runCommand(rpcUrl: string, solanaUrl: string, line: string): Promise<Record<string, unknown>> {
  const command = JSON.parse(line) as { paymasterSigner?: unknown; solanaFeePayer?: unknown };
  const { paymasterSigner, solanaFeePayer } = command;
  if (paymasterSigner === undefined && solanaFeePayer === undefined)
    throw new Error(`unknown command: ${line}`);
  if (paymasterSigner !== undefined) {
    if (typeof paymasterSigner !== "string" || !isAddress(paymasterSigner))
      throw new Error(`not an address: ${String(paymasterSigner)}`);
    await addPaymasterSigner(rpcUrl, paymasterSigner);
  }
  if (solanaFeePayer !== undefined) {
    if (typeof solanaFeePayer !== "string")
      throw new Error(`not a Solana address: ${String(solanaFeePayer)}`);
    await fundFeePayer(solanaUrl, solanaFeePayer);
  }
  return { event: "sponsored" };
}

/** Answers stdin's commands one at a time, in order; the end of stdin (a pipe whose writer is gone) stops. */
function serveCommands(rpcUrl: string, solanaUrl: string, stop: () => void): void {
  if (process.stdin.isTTY || stdinIsNull()) return;
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(() =>
      runCommand(rpcUrl, solanaUrl, line).then(
        (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
        (error: unknown) =>
          void process.stdout.write(
            `${JSON.stringify({ event: "error", message: error instanceof Error ? error.message : String(error) })}\n`,
          ),
      ),
    );
  });
  lines.on("close", () => void queue.then(stop));
}

/** stdin is /dev/null (a character device that is no terminal): its end means nothing. */
function stdinIsNull(): boolean {
  try {
    return fstatSync(0).isCharacterDevice() && !process.stdin.isTTY;
  } catch {
    return false;
  }
}

async function sponsor(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "paymaster-signer": { type: "string", multiple: true },
      "solana-fee-payer": { type: "string", multiple: true },
      "rpc-url": { type: "string" },
      "solana-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(SPONSOR_HELP);
    return 0;
  }
  const signers = evmAddresses(values["paymaster-signer"]);
  const feePayers = solanaAddresses(values["solana-fee-payer"]);
  if (!signers.length && !feePayers.length)
    throw new UsageError("give --paymaster-signer or --solana-fee-payer (or both)");
  const rpcUrl = url("rpc-url", values["rpc-url"], DEFAULT_RPC_URL);
  const solanaUrl = url("solana-url", values["solana-url"], DEFAULT_SOLANA_URL);
  for (const signer of signers) {
    await addPaymasterSigner(rpcUrl, signer);
    process.stdout.write(`The paymaster on ${rpcUrl} accepts ${signer}.\n`);
  }
  for (const feePayer of feePayers) {
    await fundFeePayer(solanaUrl, feePayer);
    process.stdout.write(`${feePayer} got 1,000 SOL on ${solanaUrl}.\n`);
  }
  return 0;
}

/** Runs the command line; resolves with the exit code, or -1 while the devnet runs (until a signal). */
export async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === "sponsor") return await sponsor(argv.slice(1));
    return await start(argv[0] === "start" ? argv.slice(1) : argv);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`latchkey-devnet: ${message}\nRun latchkey-devnet --help for the options.\n`);
      return 2;
    }
    process.stderr.write(`latchkey-devnet: ${message}\n`);
    return 1;
  }
}
