/**
 * @latchkey/devnet as an app developer runs it: the CLI on free ports (`--ports=auto`) as a child process,
 * its printed settings parsed as the developer would copy them; every part answers; a real Latchkey service
 * started with the printed service config sponsors a user operation once the printed `sponsor` command
 * registered its keys; Ctrl+C (SIGINT) stops every process the devnet started.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  toViemAccount,
} from "@latchkey/core";
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import { type Address, createPublicClient, encodeFunctionData, http, isAddress, parseAbi } from "viem";
import { createBundlerClient, createPaymasterClient } from "viem/account-abstraction";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { counterAbi, localChain } from "../../../test-support/chain/index.js";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service.js";
import { freshDatabase } from "../../server/test/helpers.js";

const BIN = resolve(__dirname, "../bin/latchkey-devnet.js");
const run = promisify(execFile);
const SOL = 1_000_000_000n;

/** What the devnet printed, as a developer reads it off the terminal. */
interface Printed {
  text: string;
  service: { chains: { chainId: number; rpcUrl: string; paymaster?: Address }[]; solana: { rpcUrl: string } };
  app: {
    chains: { chainId: number; rpcUrl: string; bundlerUrl: string }[];
    solana: { rpcUrl: string };
    walletConnect: { projectId: string; relayUrl: string };
  };
  entryPoint: Address;
  simple7702Account: Address;
  counter: Address;
  /** The arguments of the printed `sponsor` command before the service's keys (its URLs). */
  sponsorArgs: string[];
}

function printedAddress(text: string, label: string): Address {
  const found = new RegExp(`^ {2}${label}\\s+(0x[0-9a-fA-F]{40})`, "m").exec(text)?.[1];
  if (!found || !isAddress(found)) throw new Error(`no ${label} address in:\n${text}`);
  return found;
}

function parsePrinted(text: string): Printed {
  // The service's config: the indented JSON block of step 1.
  const block = /^ {3}\{\n[\s\S]*?\n {3}\}$/m.exec(text)?.[0];
  const app = /^App config as JSON: (.+)$/m.exec(text)?.[1];
  const sponsor = /npx @latchkey\/devnet sponsor (.*?)--paymaster-signer/.exec(text)?.[1];
  if (!block || !app || sponsor === undefined) throw new Error(`unexpected output:\n${text}`);
  return {
    text,
    service: JSON.parse(block),
    app: JSON.parse(app),
    entryPoint: printedAddress(text, "EntryPoint v0.8"),
    simple7702Account: printedAddress(text, "Simple7702Account"),
    counter: printedAddress(text, "Counter"),
    sponsorArgs: sponsor.trim().split(/\s+/).filter(Boolean),
  };
}

/** Starts the CLI; resolves with what it printed once it says it is up. */
function startCli(args: string[]): Promise<{ child: ChildProcess; printed: Printed }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolvePrinted, reject) => {
    child.once("exit", (code) => reject(new Error(`the devnet exited (${code}):\n${stdout}\n${stderr}`)));
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("Press Ctrl+C to stop everything.")) {
        try {
          resolvePrinted({ child, printed: parsePrinted(stdout) });
        } catch (error) {
          reject(error);
        }
      }
    });
  });
}

/** Every process below `pid` (children, their children…), from ps. */
function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [p, pp] of rows)
      if (pp === parent) {
        found.push(p);
        walk(p);
      }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const paymasterAbi = parseAbi(["function signers(address) view returns (bool)"]);

let devnet: ChildProcess;
let printed: Printed;
let childPids: number[] = [];

beforeAll(async () => {
  ({ child: devnet, printed } = await startCli(["--ports=auto"]));
  childPids = descendants(devnet.pid as number);
}, 180_000);

afterAll(async () => {
  // A failed test may leave it running: its children follow it (the orphan guard).
  if (devnet && devnet.exitCode === null && devnet.signalCode === null) devnet.kill("SIGKILL");
});

describe("the devnet's parts", () => {
  it("prints a service config and an app config on the ports it took, none of them the defaults", () => {
    const [chain] = printed.service.chains;
    expect(printed.service.chains).toHaveLength(1);
    expect(chain?.chainId).toBe(31337);
    expect(isAddress(chain?.paymaster ?? "")).toBe(true);
    expect(printed.app.chains[0]?.rpcUrl).toBe(chain?.rpcUrl);
    expect(printed.app.solana.rpcUrl).toBe(printed.service.solana.rpcUrl);
    const ports = [
      chain?.rpcUrl,
      printed.app.chains[0]?.bundlerUrl,
      printed.app.solana.rpcUrl,
      printed.app.walletConnect.relayUrl,
    ].map((u) => Number(new URL(u as string).port));
    expect(new Set(ports).size).toBe(4);
    for (const port of ports) expect([8545, 4337, 8899, 8590]).not.toContain(port);
    // not the default ports: the printed sponsor command names the URLs
    expect(printed.sponsorArgs).toEqual([
      "--rpc-url",
      chain?.rpcUrl,
      "--solana-url",
      printed.app.solana.rpcUrl,
    ]);
    // hardhat and alto, each in its own process group
    expect(childPids.length).toBeGreaterThanOrEqual(2);
  });

  it("runs an EVM chain with EntryPoint v0.8 and Simple7702Account deployed, behind a bundler for that EntryPoint", async () => {
    const { rpcUrl, bundlerUrl } = printed.app.chains[0] as { rpcUrl: string; bundlerUrl: string };
    expect(await rpc(rpcUrl, "eth_chainId")).toBe("0x7a69");
    expect(printed.entryPoint).toBe("0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108");
    for (const address of [printed.entryPoint, printed.simple7702Account, printed.counter]) {
      const code = (await rpc(rpcUrl, "eth_getCode", [address, "latest"])) as string;
      expect(code.length, address).toBeGreaterThan(100);
    }
    const supported = (await rpc(bundlerUrl, "eth_supportedEntryPoints")) as string[];
    expect(supported.map((a) => a.toLowerCase())).toContain(printed.entryPoint.toLowerCase());
  });

  it("runs a Solana node that answers getHealth and getLatestBlockhash", async () => {
    const url = printed.app.solana.rpcUrl;
    expect(await rpc(url, "getHealth")).toBe("ok");
    const latest = (await rpc(url, "getLatestBlockhash")) as { value: { blockhash: string } };
    expect(latest.value.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it("runs a WalletConnect relay that takes a websocket and answers irn_subscribe", async () => {
    const socket = new WebSocket(`${printed.app.walletConnect.relayUrl}/?projectId=local-dev`);
    try {
      const answer = await new Promise<{ id: number; result?: unknown }>((resolveAnswer, reject) => {
        socket.once("error", reject);
        socket.once("open", () =>
          socket.send(
            JSON.stringify({
              id: 7,
              jsonrpc: "2.0",
              method: "irn_subscribe",
              params: { topic: "ab".repeat(32) },
            }),
          ),
        );
        socket.once("message", (raw) => resolveAnswer(JSON.parse(String(raw))));
      });
      expect(answer.id).toBe(7);
      expect(answer.result).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      socket.close();
    }
  });
});

describe.each(["sqlite", "postgres"] as const)("a Latchkey service on the printed config (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      dev: true,
      chains: printed.service.chains,
      solana: printed.service.solana,
      logLevel: "silent",
    });
  });
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  it("starts green; the printed sponsor command makes the paymaster accept its signer and funds its Solana fee payer", async () => {
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    const chain = printed.service.chains[0];
    const paymaster = chain?.paymaster;
    if (!chain || !paymaster) throw new Error("no paymaster in the printed service config");
    const client = createPublicClient({ chain: localChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const signer = await svc.service.paymasterSignerAddress();
    const feePayer = await svc.service.solanaFeePayerAddress();
    const accepts = () =>
      client.readContract({
        address: paymaster,
        abi: paymasterAbi,
        functionName: "signers",
        args: [signer],
      });
    const balance = async () =>
      ((await rpc(printed.service.solana.rpcUrl, "getBalance", [feePayer])) as { value: number }).value;
    expect(await accepts()).toBe(false);
    expect(await balance()).toBe(0);

    const { stdout } = await run(process.execPath, [
      BIN,
      "sponsor",
      ...printed.sponsorArgs,
      "--paymaster-signer",
      signer,
      "--solana-fee-payer",
      feePayer,
    ]);
    expect(stdout).toContain(`accepts ${signer}`);
    expect(await accepts()).toBe(true);
    expect(BigInt(await balance())).toBe(1_000n * SOL);
  }, 120_000);

  it("sponsors a user operation of a 0-ETH smart account through the devnet's bundler and the service's paymaster", async () => {
    const apiKey = svc.devApiKey as string;
    const policyId = svc.service.devApp?.app.sponsorship.policies[0]?.id as string;
    expect(policyId).toBeTruthy();
    const user: Signer = createSigner({
      baseUrl: svc.url,
      apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      smartAccount: { kind: "4337" },
    });
    const email = `devnet-${kind}@example.com`;
    await user.authenticate({ type: "email", email, emailMode: "otp" });
    await user.authenticate({ type: "otp", otpCode: await devMailbox(svc.service).otpCode(email) });

    const { rpcUrl, bundlerUrl } = printed.app.chains[0] as { rpcUrl: string; bundlerUrl: string };
    const client = createPublicClient({
      chain: localChain(rpcUrl),
      transport: http(rpcUrl, { retryCount: 0 }),
      pollingInterval: 100,
    });
    const account = await SimpleSmartAccount.toSimpleSmartAccount({
      client,
      owner: toViemAccount(user),
      entryPoint: { address: printed.entryPoint, version: "0.8" },
    });
    expect(await client.getBalance({ address: account.address })).toBe(0n);
    const bundler = createBundlerClient({
      account,
      client,
      transport: http(bundlerUrl),
      pollingInterval: 100,
      paymaster: createPaymasterClient({
        transport: http(`${svc.url}/rpc/v1`, {
          retryCount: 0,
          fetchOptions: { headers: { authorization: `Bearer ${apiKey}` } },
          fetchFn: async (input: string | URL | Request, init?: RequestInit) => {
            const headers = new Headers(init?.headers);
            const { stampHeaderName, stampHeaderValue } = await user.client.keyHolder.stamp(
              String(init?.body),
            );
            headers.set(stampHeaderName, stampHeaderValue);
            return fetch(input, { ...init, headers });
          },
        }),
      }),
      paymasterContext: { policyId },
    });
    const number = () =>
      client.readContract({ address: printed.counter, abi: counterAbi, functionName: "number" });
    const before = await number();
    const hash = await bundler.sendUserOperation({
      calls: [
        { to: printed.counter, data: encodeFunctionData({ abi: counterAbi, functionName: "increment" }) },
      ],
    });
    const receipt = await bundler.waitForUserOperationReceipt({ hash, timeout: 60_000 });
    expect(receipt.success).toBe(true);
    expect(await number()).toBe(before + 1n);
    expect(await client.getBalance({ address: account.address })).toBe(0n);
  }, 120_000);
});

describe("stopping", () => {
  it("stops every process it started on Ctrl+C (SIGINT) and exits 0", async () => {
    expect(childPids.every(alive)).toBe(true);
    const exited = new Promise<number | null>((done) => devnet.once("exit", (code) => done(code)));
    devnet.kill("SIGINT");
    expect(await exited).toBe(0);
    for (let i = 0; i < 100 && childPids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(childPids.filter(alive)).toEqual([]);
  }, 30_000);

  it("refuses a mistyped option with a hint and exit code 2, starting nothing", async () => {
    const failed = await run(process.execPath, [BIN, "--ports=fixed"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain("--ports: only --ports=auto is known");
  });
});
