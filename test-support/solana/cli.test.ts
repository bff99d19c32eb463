import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { address, createSolanaRpc, generateKeyPairSigner } from "@solana/kit";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const clis: ChildProcessWithoutNullStreams[] = [];

afterAll(() => {
  for (const cli of clis) if (cli.exitCode === null && cli.signalCode === null) cli.kill("SIGKILL");
});

/** Spawns the CLI and waits for its ready line. */
async function startCli() {
  const child = spawn(process.execPath, ["--import", "tsx", "test-support/solana/cli.ts"], { cwd: root });
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

describe("test-support/solana/cli.ts", () => {
  it("prints ready, airdrops on command, answers errors, and stops on SIGTERM", async () => {
    const { child, lines, ready, exited } = await startCli();
    expect(Object.keys(ready).sort()).toEqual(["event", "url", "wsUrl"]);
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.wsUrl).toBe((ready.url as string).replace("http:", "ws:"));

    const to = (await generateKeyPairSigner()).address;
    child.stdin.write(`${JSON.stringify({ airdrop: to, lamports: "1500000000" })}\n`);
    const airdropped = await nextEvent(lines);
    expect(airdropped).toMatchObject({ event: "airdropped", address: to, lamports: "1500000000" });
    const rpc = createSolanaRpc(ready.url as string);
    expect((await rpc.getBalance(address(to)).send()).value).toBe(1_500_000_000n);
    const { value } = await rpc.getSignatureStatuses([airdropped.signature as never]).send();
    expect(value[0]?.err).toBeNull();

    child.stdin.write(`${JSON.stringify({ airdrop: "not-an-address", lamports: "1" })}\n`);
    expect(await nextEvent(lines)).toEqual({
      event: "error",
      message: "not a Solana address: not-an-address",
    });
    child.stdin.write(`${JSON.stringify({ airdrop: to, lamports: "0" })}\n`);
    expect(await nextEvent(lines)).toEqual({
      event: "error",
      message: '"lamports" must be a positive decimal string',
    });
    child.stdin.write("not json\n");
    expect(await nextEvent(lines)).toMatchObject({ event: "error" });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(fetch(ready.url as string, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("stops at the end of stdin", async () => {
    const { child, exited } = await startCli();
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});
