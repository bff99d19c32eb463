import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { unusedPort } from "../ports.js";
import { altoSimulationDeploys } from "./altoSimulations.js";
import { addSignerCallData, deployContracts, devSender } from "./deploy.js";
import { ProcessExitedError, type ProcessGroup, spawnNodeGroup, waitForRpc } from "./processes.js";

export { compileCounter, readCounterArtifact } from "./compileCounter.js";
export { compileLatchkeyAccount, readLatchkeyAccountArtifacts } from "./compileLatchkeyAccount.js";
export { counterAbi, counterBytecode } from "./counter.js";
export {
  CREATE2_DEPLOYER,
  DEPLOYER,
  LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08,
  PAYMASTER_DEPOSIT,
  SIMPLE_7702_ACCOUNT_08,
  SIMPLE_ACCOUNT_FACTORY_08,
} from "./deploy.js";
export { type MockPaymasterModules, mockPaymasterModules } from "./mockPaymaster.js";

/** The chain id of the local chain (hardhat's). */
export const CHAIN_ID = 31337;

/** Hardhat's well-known dev accounts #1 and #2 (hardhat.config.cjs): alto's executor and utility wallets. */
const BUNDLER_EXECUTOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BUNDLER_UTILITY_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const BUNDLER_UTILITY_ADDRESS = privateKeyToAccount(BUNDLER_UTILITY_KEY).address;

const HERE = dirname(fileURLToPath(import.meta.url));
const HARDHAT_CONFIG = join(HERE, "hardhat.config.cjs");
const ALTO_LAUNCHER = join(HERE, "altoLauncher.mjs");
/** How often a port clash (another process took the free port first) is retried with a new port. */
const PORT_ATTEMPTS = 3;

/**
 * A real local ERC-4337 stack: a hardhat 2 node with EntryPoint v0.8 (canonical address), SimpleAccountFactory
 * v0.8, Pimlico's SingletonPaymasterV8 (deposit funded) and a Counter, plus an alto bundler in front of it.
 */
export interface ChainStack {
  /** 31337 */
  chainId: number;
  /** viem chain object for it (id 31337, rpcUrls = this node). */
  chain: Chain;
  /** The hardhat node, e.g. http://127.0.0.1:45123 */
  rpcUrl: string;
  /** The alto bundler, e.g. http://127.0.0.1:45124 ("" when started with `bundler: false`). */
  bundlerUrl: string;
  /** EntryPoint v0.8 at its canonical address 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108. */
  entryPoint: Address;
  /** SimpleAccountFactory v0.8 at 0x13E9ed32155810FDbd067D4522C492D6f68E5944 (permissionless' default for 0.8). */
  accountFactory: Address;
  /**
   * LatchkeySimpleAccountFactory at 0x73666E96bfB48bCEAaf78F7186a760b50167E364: SimpleAccount with ERC-1271,
   * the factory of new 4337 accounts (contracts/LatchkeySimpleAccount.sol).
   */
  latchkeyAccountFactory: Address;
  /** Simple7702Account v0.8 at 0xe6Cae83BdE06E4c305530e199D7217f42808555B: the delegate of 7702 accounts. */
  simple7702Account: Address;
  /** Pimlico's SingletonPaymasterV8 (owner = manager = DEPLOYER), with PAYMASTER_DEPOSIT in the EntryPoint. */
  paymaster: Address;
  /** A Counter: `number()`, `increment()`, `add(uint256)`, `fail()` (reverts with "Counter: fail"). */
  counter: Address;
  /** A client of the node (polling every 100 ms, no retries: a reverted call fails at once). */
  publicClient: PublicClient;
  /** How long the start took, in ms, by step. */
  timings: { hardhatMs: number; deployMs: number; bundlerMs: number; totalMs: number };
  /** Sends `wei` from DEPLOYER (hardhat dev account #0) to `address`; resolves once mined. Concurrency-safe. */
  fund(address: Address, wei: bigint): Promise<void>;
  /** Makes the paymaster accept signatures of `signer` (the owner's `addSigner`); resolves once mined. */
  addPaymasterSigner(signer: Address): Promise<void>;
  /** Kills hardhat and alto (their whole process groups). Idempotent. */
  stop(): Promise<void>;
}

/** What `startChainStack` starts. */
export interface ChainStackOptions {
  /** Start alto too (default true). */
  bundler?: boolean;
  /** Signer addresses the paymaster accepts from the start (besides DEPLOYER). */
  paymasterSigners?: Address[];
  /** The node's port (default: a free one). */
  port?: number;
  /** alto's port (default: a free one). */
  bundlerPort?: number;
}

/**
 * Starts the local chain stack (about 2–3 s): hardhat node, the deployments, alto. Every process runs in its
 * own process group and is killed on `stop()`, on a failed start, and when this process exits or dies.
 * @example
 * const stack = await startChainStack();
 * try { await stack.fund(address, parseEther("1")); } finally { await stack.stop(); }
 */
export async function startChainStack(options: ChainStackOptions = {}): Promise<ChainStack> {
  const started = performance.now();
  const spawned: ProcessGroup[] = [];
  let running = false;
  const spawn: Spawn = (name, script, args) => {
    // ALTO_LOG_LEVEL (e.g. debug: why alto refuses an operation) also shows alto's output on stderr
    const echo = name === "alto" && process.env.ALTO_LOG_LEVEL !== undefined;
    const group = spawnNodeGroup(name, script, args, { cwd: HERE, echo });
    spawned.push(group);
    void group.exited.then(({ stopped }) => {
      if (running && !stopped) {
        process.stderr.write(`chain stack: ${name} exited (${group.exitStatus()}):\n${group.output()}\n`);
      }
    });
    return group;
  };
  const stop = () => Promise.all(spawned.map((g) => g.stop())).then(() => undefined);
  try {
    // alto loads its modules while hardhat starts and the contracts deploy (see altoLauncher.mjs)
    const bundler = options.bundler !== false;
    let launcher = bundler ? spawn("alto", ALTO_LAUNCHER, [altoEsmDir()]) : undefined;
    const node = await startWithPortRetry(options.port, (port) => startHardhat(spawn, port));
    const hardhatMs = performance.now() - started;

    const chain = localChain(node.url);
    // no retries: viem retries "internal errors", which is how hardhat answers a reverted call (+1.05 s each)
    const transport = http(node.url, { retryCount: 0 });
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
    const sender = devSender(createWalletClient({ chain, transport }), publicClient);
    const simulations = bundler ? altoSimulationDeploys(altoEsmDir(), BUNDLER_UTILITY_ADDRESS) : [];
    const deployment = await deployContracts(sender, publicClient, simulations);
    for (const signer of options.paymasterSigners ?? []) {
      await sender.send({ to: deployment.paymaster, data: addSignerCallData(signer) });
    }
    const deployMs = performance.now() - started - hardhatMs;

    let bundlerUrl = "";
    if (bundler) {
      const alto = await startWithPortRetry(options.bundlerPort, (port) => {
        const group = launcher ?? spawn("alto", ALTO_LAUNCHER, [altoEsmDir()]);
        launcher = undefined; // a retry (port clash) needs a new one
        return startAlto(group, { port, rpcUrl: node.url, entryPoint: deployment.entryPoint });
      });
      bundlerUrl = alto.url;
    }
    running = true;
    const totalMs = performance.now() - started;
    const timings = { hardhatMs, deployMs, bundlerMs: totalMs - hardhatMs - deployMs, totalMs };
    return {
      chainId: CHAIN_ID,
      chain,
      rpcUrl: node.url,
      bundlerUrl,
      ...deployment,
      publicClient,
      timings: roundTimings(timings),
      fund: async (address, wei) => {
        await sender.send({ to: address, value: wei });
      },
      addPaymasterSigner: async (signer) => {
        await sender.send({ to: deployment.paymaster, data: addSignerCallData(signer) });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function roundTimings<T extends Record<string, number>>(timings: T): T {
  return Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)])) as T;
}

/** The viem chain object of a local node at `rpcUrl` (viem's `hardhat` chain, without loading viem/chains). */
export function localChain(rpcUrl: string, id = CHAIN_ID): Chain {
  return defineChain({
    id,
    name: id === CHAIN_ID ? "Hardhat" : `Local ${id}`,
    nativeCurrency: { decimals: 18, name: "Ether", symbol: "ETH" },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

interface Started {
  group: ProcessGroup;
  url: string;
}

/** Starts on `port`, or on a free port, retrying with a new one when another process took it meanwhile. */
async function startWithPortRetry(port: number | undefined, start: (port: number) => Promise<Started>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(port ?? (await unusedPort()));
    } catch (error) {
      const clash = error instanceof ProcessExitedError && error.portInUse;
      if (!clash || port !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** Waits until a started process answers; stops it when it does not. */
async function ready(group: ProcessGroup, url: string, readyLine?: RegExp): Promise<Started> {
  try {
    await waitForRpc(group, url, "eth_chainId", { readyLine });
    return { group, url };
  } catch (error) {
    await group.stop();
    throw error;
  }
}

type Spawn = (name: string, script: string, args: string[], env?: Record<string, string>) => ProcessGroup;

/** A bare local node (no contracts, no bundler) on its own chain id: a second network to switch to. */
export interface LocalNode {
  chainId: number;
  chain: Chain;
  rpcUrl: string;
  publicClient: PublicClient;
  stop(): Promise<void>;
}

/**
 * Starts a hardhat node with chain id `chainId` (the dev accounts funded, nothing deployed), about 1 s.
 * @example
 * const other = await startLocalNode({ chainId: 31338 });
 * try { await wallet.switchChain(other.chainId) } finally { await other.stop() }
 */
export async function startLocalNode({
  chainId,
  port,
}: {
  chainId: number;
  port?: number | undefined;
}): Promise<LocalNode> {
  let group: ProcessGroup | undefined;
  const spawn: Spawn = (name, script, args, env) => {
    group = spawnNodeGroup(name, script, args, { cwd: HERE, env: env ?? {} });
    return group;
  };
  const node = await startWithPortRetry(port, (p) => startHardhat(spawn, p, chainId));
  const chain = localChain(node.url, chainId);
  return {
    chainId,
    chain,
    rpcUrl: node.url,
    publicClient: createPublicClient({
      chain,
      transport: http(node.url, { retryCount: 0 }),
      pollingInterval: 100,
    }),
    stop: async () => {
      await group?.stop();
    },
  };
}

function startHardhat(spawn: Spawn, port: number, chainId?: number): Promise<Started> {
  const cli = createRequire(import.meta.url).resolve("hardhat/internal/cli/cli.js");
  const args = ["node", "--config", HARDHAT_CONFIG, "--hostname", "127.0.0.1", "--port", String(port)];
  // cwd (spawnNodeGroup's HERE): inside the repository, where hardhat finds its local installation (else HH12)
  const group = spawn("hardhat node", cli, args, chainId ? { LATCHKEY_CHAIN_ID: String(chainId) } : {});
  return ready(group, `http://127.0.0.1:${port}`, /Started HTTP and WebSocket JSON-RPC server/);
}

interface AltoSettings {
  port: number;
  rpcUrl: string;
  entryPoint: Address;
}

/** Lets a waiting altoLauncher.mjs start alto. */
function startAlto(launcher: ProcessGroup, settings: AltoSettings): Promise<Started> {
  launcher.writeLine(`start ${JSON.stringify(altoArgs(settings))}`);
  return ready(launcher, `http://127.0.0.1:${settings.port}`);
}

/** alto's package "exports" hide its CLI from require.resolve: it is in the folder of its entry, esm/index.js. */
function altoEsmDir(): string {
  return dirname(createRequire(import.meta.url).resolve("@pimlico/alto"));
}

/**
 * alto's options, as verified in TOOLCHAIN.md: safe mode (the ERC-7562 rule checks) off, quiet logs. It
 * listens on 0.0.0.0: version 0.0.20 has no option for the host.
 * `--binary-search-gas-allowance` 5M instead of 30M: the gas estimation's search range, which hardhat's EVM
 * simulates slowly. Measured per user operation: funded 0.3–0.6 s → 0.2–0.3 s, sponsored 1.0–1.4 s → 0.3–0.5 s.
 * It caps what an estimate can reach near 5M gas of execution (an operation needing more is estimated too low
 * and reverts); on this node such an operation times out its estimation (10 s) with the default anyway.
 * `--split-simulation-calls`: the estimation's simulation and its three binary searches as four calls at once
 * instead of one after the other. Measured for a sponsored operation (the paymaster's validation is searched
 * too): 0.3 s → 0.07–0.12 s per estimation, so a sponsored 7702 operation 0.45–0.6 s → ~0.25 s.
 * `--min-bundle-interval` 20 and `--max-bundle-interval` 50 (100 and 1000 by default): alto waits between
 * bundling rounds 20 ms + 10 ms per operation it took in the last minute, up to the maximum, so with the
 * defaults an operation's inclusion grew from ~0.05 s to ~0.5 s over 60 operations in a row (a test file, a
 * bench); capped at 50 ms it stays at ~0.15 s. `--block-time` 200 (1000 by default): alto watches blocks
 * every block time / 4, and a bundle's executor wallet is free again only once its block is seen; every
 * 50 ms instead of 250 ms, inclusion is 0.03–0.08 s.
 */
function altoArgs({ port, rpcUrl, entryPoint }: AltoSettings): string[] {
  return [
    "--entrypoints",
    entryPoint,
    "--executor-private-keys",
    BUNDLER_EXECUTOR_KEY,
    "--utility-private-key",
    BUNDLER_UTILITY_KEY,
    "--rpc-url",
    rpcUrl,
    "--safe-mode",
    "false",
    "--binary-search-gas-allowance",
    "5000000",
    "--split-simulation-calls",
    "true",
    "--min-bundle-interval",
    "20",
    "--max-bundle-interval",
    "50",
    "--block-time",
    "200",
    "--port",
    String(port),
    "--log-level",
    process.env.ALTO_LOG_LEVEL ?? "warn",
    "--wallet-client-log-level",
    "fatal",
    // Pages (the demo, e2e tests) call the bundler from their own origin.
    "--enable-cors",
    "true",
  ];
}

/**
 * The stack as one of @latchkey/core's `chains` (a `SmartAccountChainConfig`), polling at 100 ms; `policyId`
 * names a sponsorship policy of the app.
 */
export function smartAccountChainOf(stack: ChainStack, extra: { policyId?: string } = {}) {
  return {
    chain: stack.chain,
    rpcUrl: stack.rpcUrl,
    bundlerUrl: stack.bundlerUrl,
    pollingInterval: 100,
    ...extra,
  };
}
