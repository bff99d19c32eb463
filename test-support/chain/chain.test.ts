import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
// this subpath, unlike "permissionless/accounts", loads no module that imports `ox`
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  http,
  type LocalAccount,
  parseAbi,
  parseEther,
} from "viem";
import {
  createBundlerClient,
  entryPoint08Abi,
  type SmartAccount,
  type UserOperation,
} from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainStack, counterAbi, mockPaymasterModules, startChainStack } from "./index.js";

const paymasterAbi = parseAbi(["function signers(address) view returns (bool)"]);

let stack: ChainStack;

beforeAll(async () => {
  stack = await startChainStack();
  console.info("chain stack start (ms):", stack.timings);
});

afterAll(async () => {
  const started = performance.now();
  await stack?.stop();
  console.info(`chain stack stop: ${Math.round(performance.now() - started)} ms`);
});

/** The hardhat and alto processes whose parent is `pid`. */
function chainChildrenOf(pid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m) => m && Number(m[2]) === pid && /hardhat|alto/.test(m[3] ?? ""))
    .map((m) => Number(m?.[1]));
}

const counterNumber = () =>
  stack.publicClient.readContract({ address: stack.counter, abi: counterAbi, functionName: "number" });

function simpleAccount(owner: LocalAccount = privateKeyToAccount(generatePrivateKey())) {
  return SimpleSmartAccount.toSimpleSmartAccount({
    client: stack.publicClient,
    owner,
    entryPoint: { address: stack.entryPoint, version: "0.8" },
  });
}

type Paymaster = Parameters<typeof createBundlerClient>[0]["paymaster"];

function bundlerFor(account: SmartAccount, paymaster?: Paymaster) {
  return createBundlerClient({
    account,
    client: stack.publicClient,
    transport: http(stack.bundlerUrl),
    pollingInterval: 100,
    paymaster,
  });
}

/** Sends one user operation and waits for its receipt; returns it with the time it took. */
async function sendAndWait(
  bundler: ReturnType<typeof bundlerFor>,
  request: Parameters<typeof bundler.sendUserOperation>[0],
) {
  const started = performance.now();
  const hash = await bundler.sendUserOperation(request);
  const receipt = await bundler.waitForUserOperationReceipt({ hash });
  return { receipt, ms: Math.round(performance.now() - started) };
}

const increment = () => ({ to: stack.counter, abi: counterAbi, functionName: "increment" }) as const;
const add = (n: bigint) => ({ to: stack.counter, abi: counterAbi, functionName: "add", args: [n] }) as const;

describe("the local chain stack", () => {
  it("has the canonical EntryPoint v0.8, permissionless' default factory and a paymaster deposit", async () => {
    expect(stack.chainId).toBe(31337);
    expect(stack.chain.id).toBe(31337);
    expect(await stack.publicClient.getChainId()).toBe(31337);
    expect(stack.entryPoint).toBe("0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108");
    expect(stack.accountFactory).toBe("0x13E9ed32155810FDbd067D4522C492D6f68E5944");
    // LatchkeySimpleAccountFactory (SimpleAccount with ERC-1271) where the committed artifact lands
    expect(stack.latchkeyAccountFactory).toBe("0x73666E96bfB48bCEAaf78F7186a760b50167E364");
    expect(await stack.publicClient.getCode({ address: stack.latchkeyAccountFactory })).toMatch(
      /^0x[0-9a-f]{100,}$/,
    );
    // Simple7702Account at its canonical address (permissionless' default 7702 delegate), with code
    expect(stack.simple7702Account).toBe("0xe6Cae83BdE06E4c305530e199D7217f42808555B");
    expect(await stack.publicClient.getCode({ address: stack.simple7702Account })).toMatch(
      /^0x[0-9a-f]{100,}$/,
    );
    const deposit = await stack.publicClient.readContract({
      address: stack.entryPoint,
      abi: entryPoint08Abi,
      functionName: "balanceOf",
      args: [stack.paymaster],
    });
    expect(deposit).toBe(parseEther("100"));
    await expect(
      stack.publicClient.readContract({ address: stack.counter, abi: counterAbi, functionName: "fail" }),
    ).rejects.toThrow(/Counter: fail/);
  });

  it("listens on loopback only: hardhat and alto (which asks for 0.0.0.0)", () => {
    // /proc/net/tcp{,6}: local address and port in hex, state 0A = LISTEN.
    const listeners = ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((cols) => cols[3] === "0A")
        .map((cols) => {
          const [address = "", port = ""] = (cols[1] ?? "").split(":");
          return { address, port: Number.parseInt(port, 16) };
        }),
    );
    for (const url of [stack.rpcUrl, stack.bundlerUrl]) {
      const port = Number(new URL(url).port);
      const bound = listeners.filter((l) => l.port === port).map((l) => l.address);
      expect(bound.length, url).toBeGreaterThan(0);
      expect(bound, url).toEqual(bound.map(() => "0100007F")); // 127.0.0.1, little-endian
    }
  });

  it("fails clearly, and leaves no process behind, when it cannot start", async () => {
    const ours = chainChildrenOf(process.pid);
    expect(ours).toHaveLength(2); // the shared stack's hardhat and alto
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(startChainStack({ port })).rejects.toThrow(/hardhat node exited .*EADDRINUSE/s);
    } finally {
      taken.close();
    }
    expect(chainChildrenOf(process.pid)).toEqual(ours);
  });

  it("funds addresses, also several at once", async () => {
    const addresses = [1, 2, 3].map(() => privateKeyToAccount(generatePrivateKey()).address);
    await Promise.all(addresses.map((address, i) => stack.fund(address, BigInt(i + 1))));
    const balances = await Promise.all(
      addresses.map((address) => stack.publicClient.getBalance({ address })),
    );
    expect(balances).toEqual([1n, 2n, 3n]);
  });

  it("runs a funded SimpleAccount's user operations through alto: one call, then a batch", async () => {
    const account = await simpleAccount();
    expect((await account.getFactoryArgs()).factory).toBe(stack.accountFactory);
    await stack.fund(account.address, parseEther("1"));
    expect(await stack.publicClient.getBalance({ address: account.address })).toBe(parseEther("1"));
    const bundler = bundlerFor(account);

    const before = await counterNumber();
    const first = await sendAndWait(bundler, { calls: [increment()] });
    expect(first.receipt.success).toBe(true);
    expect(await counterNumber()).toBe(before + 1n);
    expect(await stack.publicClient.getCode({ address: account.address })).toMatch(/^0x[0-9a-f]{10,}/);

    const batch = await sendAndWait(bundler, { calls: [increment(), add(5n)] });
    expect(batch.receipt.success).toBe(true);
    expect(await counterNumber()).toBe(before + 7n);
    expect(await stack.publicClient.getBalance({ address: account.address })).toBeLessThan(parseEther("1"));
    console.info(`user operation: first (deploys the account) ${first.ms} ms, batch of two ${batch.ms} ms`);
  });

  it("rejects a user operation whose call reverts, with the reason", async () => {
    const account = await simpleAccount();
    await stack.fund(account.address, parseEther("1"));
    await expect(
      bundlerFor(account).sendUserOperation({
        calls: [{ to: stack.counter, abi: counterAbi, functionName: "fail" }],
      }),
    ).rejects.toThrow(/Counter: fail/);
  });

  describe("the paymaster", () => {
    const mode = { mode: "verifying" } as const;

    /** ERC-7677's two calls, answered in-process by the mock paymaster's helpers with `signer`'s key. */
    async function paymasterSignedBy(signer: LocalAccount): Promise<Paymaster> {
      const { singletonPaymasters } = await mockPaymasterModules();
      const signerClient = createWalletClient({
        account: signer,
        chain: stack.chain,
        transport: http(stack.rpcUrl),
      });
      const paymaster = stack.paymaster;
      return {
        async getPaymasterStubData() {
          const stub = singletonPaymasters.getDummyPaymasterData({
            is06: false,
            paymaster,
            paymasterMode: mode,
          });
          if (!("paymaster" in stub)) throw new Error("expected v0.7+ paymaster data");
          return {
            ...stub,
            paymasterVerificationGasLimit: 50_000n,
            paymasterPostOpGasLimit: 100_000n,
            isFinal: false,
          };
        },
        async getPaymasterData(userOperation) {
          const signed = await singletonPaymasters.getSignedPaymasterData({
            publicClient: stack.publicClient,
            signer: signerClient,
            userOp: { ...userOperation, signature: "0x" } as UserOperation,
            paymaster,
            paymasterMode: mode,
          });
          if (!signed.paymaster || !signed.paymasterData) throw new Error("expected v0.7+ paymaster data");
          return { paymaster: signed.paymaster, paymasterData: signed.paymasterData };
        },
      };
    }

    it("sponsors a brand-new account holding no ETH once its signer was added", async () => {
      const signer = privateKeyToAccount(generatePrivateKey());
      await stack.addPaymasterSigner(signer.address);
      expect(
        await stack.publicClient.readContract({
          address: stack.paymaster,
          abi: paymasterAbi,
          functionName: "signers",
          args: [signer.address],
        }),
      ).toBe(true);

      const account = await simpleAccount();
      const bundler = bundlerFor(account, await paymasterSignedBy(signer));
      const depositBefore = await paymasterDeposit();
      const before = await counterNumber();
      const first = await sendAndWait(bundler, { calls: [increment()] });
      expect(first.receipt.success).toBe(true);
      expect(first.receipt.paymaster).toBe(stack.paymaster);
      const second = await sendAndWait(bundler, { calls: [add(2n)] });
      expect(second.receipt.success).toBe(true);

      expect(await counterNumber()).toBe(before + 3n);
      expect(await stack.publicClient.getBalance({ address: account.address })).toBe(0n);
      expect(await paymasterDeposit()).toBeLessThan(depositBefore);
      console.info(
        `sponsored user operation: first (deploys the account) ${first.ms} ms, next ${second.ms} ms`,
      );
    });

    it("refuses paymaster data signed by a key it does not know", async () => {
      const stranger = privateKeyToAccount(generatePrivateKey());
      const bundler = bundlerFor(await simpleAccount(), await paymasterSignedBy(stranger));
      await expect(bundler.sendUserOperation({ calls: [increment()] })).rejects.toThrow(/AA34/);
    });

    function paymasterDeposit() {
      return stack.publicClient.readContract({
        address: stack.entryPoint,
        abi: entryPoint08Abi,
        functionName: "balanceOf",
        args: [stack.paymaster],
      });
    }
  });
});

describe("cli.ts", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const clis: ChildProcessWithoutNullStreams[] = [];

  afterAll(() => {
    for (const cli of clis) if (cli.exitCode === null && cli.signalCode === null) cli.kill("SIGKILL");
  });

  /** Spawns the CLI and waits for its ready line. */
  async function startCli() {
    const child = spawn(process.execPath, ["--import", "tsx", "test-support/chain/cli.ts"], { cwd: root });
    clis.push(child);
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const ready = await nextEvent(lines).catch((e: Error) => {
      throw new Error(`${e.message}\n${stderr}`);
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { child, lines, ready, exited };
  }

  /** The next JSON line the CLI prints. */
  async function nextEvent(lines: AsyncIterator<string>): Promise<Record<string, unknown>> {
    const next = await lines.next();
    if (next.done) throw new Error("the CLI closed its stdout");
    return JSON.parse(next.value) as Record<string, unknown>;
  }

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** Polls until none of `pids` runs any more; returns those still running after `ms`. */
  async function stillRunningAfter(pids: number[], ms: number): Promise<number[]> {
    const deadline = Date.now() + ms;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return pids.filter(alive);
  }

  it("prints ready, answers commands, and leaves no process behind on SIGTERM", async () => {
    const { child, lines, ready, exited } = await startCli();
    expect(ready).toMatchObject({
      event: "ready",
      chainId: 31337,
      entryPoint: "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108",
      accountFactory: "0x13E9ed32155810FDbd067D4522C492D6f68E5944",
    });
    expect(Object.keys(ready).sort()).toEqual(
      [
        "event",
        "chainId",
        "rpcUrl",
        "bundlerUrl",
        "entryPoint",
        "accountFactory",
        "paymaster",
        "counter",
      ].sort(),
    );
    for (const key of ["rpcUrl", "bundlerUrl"]) expect(ready[key]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const key of ["paymaster", "counter"]) expect(ready[key]).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const publicClient = createPublicClient({ transport: http(ready.rpcUrl as string) });
    const signer = privateKeyToAccount(generatePrivateKey()).address;
    child.stdin.write(`${JSON.stringify({ addPaymasterSigner: signer })}\n`);
    expect(await nextEvent(lines)).toEqual({ event: "paymasterSignerAdded", signer });
    const isSigner = await publicClient.readContract({
      address: ready.paymaster as Address,
      abi: paymasterAbi,
      functionName: "signers",
      args: [signer],
    });
    expect(isSigner).toBe(true);

    child.stdin.write(`${JSON.stringify({ fund: signer, wei: "123" })}\n`);
    expect(await nextEvent(lines)).toEqual({ event: "funded" });
    expect(await publicClient.getBalance({ address: signer })).toBe(123n);
    child.stdin.write("not json\n");
    expect(await nextEvent(lines)).toMatchObject({ event: "error" });

    const children = chainChildrenOf(child.pid!);
    expect(children).toHaveLength(2); // hardhat node and alto
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(children.filter(alive)).toEqual([]); // stopped before the CLI exited
    await expect(publicClient.getChainId()).rejects.toThrow();
  });

  it("leaves no process behind either when it is killed outright (SIGKILL)", async () => {
    const { child, exited } = await startCli();
    const children = chainChildrenOf(child.pid!);
    expect(children).toHaveLength(2);
    child.kill("SIGKILL");
    await exited;
    // the orphan guard: their stdin pipe from the CLI closed
    expect(await stillRunningAfter(children, 5_000)).toEqual([]);
  });
});
