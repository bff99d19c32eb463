/**
 * One local chain stack (hardhat, EntryPoint v0.8, paymaster, alto) for a whole vitest run, as viem's
 * test/setup.global.ts and wagmi's globalSetup share their anvil: before, each of ~16 files started its own
 * (about 12 s CPU and 10–20 s of its wall each).
 *
 * The global setup (the default export, vitest's main process) serves the stack's addresses over loopback
 * HTTP (LATCHKEY_TEST_CHAIN: `GET /stack`), starting it on the first file's request, or at once when the
 * run's files ask for it (read from their source), so it is ready when they start. A test file calls
 * `sharedChainStack()` instead of `startChainStack()`: what a file must not share is its own (a Counter of
 * its own; every test funds fresh accounts already), and its `stop()` leaves the run's stack running. Outside
 * such a run (a script, a run without the setup) `sharedChainStack()` starts a stack of the file's own.
 *
 * Files whose chain is the point (its start, its ports, its processes: chain.test.ts, devnet.test.ts) still
 * start their own.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import type { TestProject } from "vitest/node";
import { addSignerCallData, deployCounter, devSender } from "./deploy.js";
import { type ChainStack, type ChainStackOptions, localChain, startChainStack } from "./index.js";

/** What the global setup hands a test file: the run's stack, without its processes and clients. */
type SharedStack = Pick<
  ChainStack,
  | "chainId"
  | "rpcUrl"
  | "bundlerUrl"
  | "entryPoint"
  | "accountFactory"
  | "latchkeyAccountFactory"
  | "simple7702Account"
  | "paymaster"
  | "timings"
>;

/** The environment variable naming the global setup's server. */
const ENV = "LATCHKEY_TEST_CHAIN";

/**
 * The run's chain stack, seen from a test file: the same contracts, bundler and paymaster, with a Counter
 * of the file's own. `bundler: false` answers an empty `bundlerUrl` (the file does not use one). `stop()`
 * stops nothing but a stack started for this file alone (no global setup in this run).
 * @example
 * const stack = await sharedChainStack();
 * try { await stack.fund(address, parseEther("1")); } finally { await stack.stop(); }
 */
export async function sharedChainStack(
  options: Pick<ChainStackOptions, "bundler"> = {},
): Promise<ChainStack> {
  const server = process.env[ENV];
  if (!server) return startChainStack(options);
  const res = await fetch(`${server}/stack`);
  const text = await res.text();
  if (!res.ok) throw new Error(`the run's chain stack did not start:\n${text}`);
  const shared = JSON.parse(text) as SharedStack;
  const chain = localChain(shared.rpcUrl, shared.chainId);
  // As startChainStack's: no retries (a reverted call fails at once), polling every 100 ms. A connection per
  // request: the node (a process of the run, not of this file) closes a connection idle for 5 s, and a
  // request sent on it just then (after a service start of about that long) failed with "other side closed".
  const transport = http(shared.rpcUrl, {
    retryCount: 0,
    fetchOptions: { headers: { connection: "close" } },
  });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const sender = devSender(createWalletClient({ chain, transport }), publicClient);
  const counter = await deployCounter(sender, publicClient, `0x${randomBytes(32).toString("hex")}` as Hex);
  return {
    ...shared,
    bundlerUrl: options.bundler === false ? "" : shared.bundlerUrl,
    chain,
    counter,
    publicClient,
    fund: async (address: Address, wei: bigint) => {
      await sender.send({ to: address, value: wei });
    },
    addPaymasterSigner: async (signer: Address) => {
      await sender.send({ to: shared.paymaster, data: addSignerCallData(signer) });
    },
    stop: async () => {},
  };
}

/** Whether the run's files call for the shared stack (from their source; a miss only starts it later). */
function runWantsChain(project: TestProject): boolean {
  // Vitest's list of the run's files (internal API, as e2e/helpers/pageServer.ts reads it).
  const state = (project.vitest as unknown as { state?: { getPaths?(): string[] } }).state;
  for (const path of state?.getPaths?.() ?? []) {
    try {
      if (/sharedChainStack\(|chain: true/.test(readFileSync(path, "utf8"))) return true;
    } catch {}
  }
  return false;
}

/**
 * Vitest's global setup (listed by each project whose files use a chain): one stack for the run. Each
 * project runs its own copy of this setup, all in vitest's main process before any worker starts: the
 * first serves the stack, the others find LATCHKEY_TEST_CHAIN set and leave it to the first.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env[ENV]) return undefined;
  let starting: Promise<ChainStack> | undefined;
  const stack = () => {
    starting ??= startChainStack();
    return starting;
  };
  if (runWantsChain(project)) stack().catch(() => {}); // the error reaches the first file that asks
  const server = createServer((req, res) => {
    if (req.url !== "/stack") {
      res.writeHead(404).end();
      return;
    }
    stack().then(
      (s) => {
        const shared: SharedStack = {
          chainId: s.chainId,
          rpcUrl: s.rpcUrl,
          bundlerUrl: s.bundlerUrl,
          entryPoint: s.entryPoint,
          accountFactory: s.accountFactory,
          latchkeyAccountFactory: s.latchkeyAccountFactory,
          simple7702Account: s.simple7702Account,
          paymaster: s.paymaster,
          timings: s.timings,
        };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(shared));
      },
      (e: unknown) =>
        res.writeHead(500, { "content-type": "text/plain" }).end(e instanceof Error ? e.stack : String(e)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The test workers start after this, with this environment.
  process.env[ENV] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async () => {
    delete process.env[ENV];
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await starting?.then((s) => s.stop()).catch(() => {});
  };
}
