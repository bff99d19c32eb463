import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { startWalletConnectRelay, type WalletConnectRelay } from "./relay.js";

const HERE = dirname(fileURLToPath(import.meta.url));

let relay: WalletConnectRelay | undefined;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await relay?.close();
  relay = undefined;
});

/** A fake auth JWT with this `iss` (the relay reads it, it does not verify it). */
function jwt(iss: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "EdDSA", typ: "JWT" })}.${part({ iss, sub: "x" })}.signature`;
}

/** A raw client: `call` sends a JSON-RPC request and resolves with its answer; `received` holds the rest. */
async function client(url: string, iss: string) {
  const socket = new WebSocket(`${url}/?auth=${jwt(iss)}&projectId=test`);
  sockets.push(socket);
  const received: { method: string; params: { data: { topic: string; message: string } } }[] = [];
  const answers = new Map<number, (answer: unknown) => void>();
  socket.on("message", (raw) => {
    const message = JSON.parse(raw.toString());
    if (message.method) received.push(message);
    else answers.get(message.id)?.(message);
  });
  await once(socket, "open");
  let id = 0;
  const call = (method: string, params: object) =>
    new Promise<{ result?: unknown; error?: { code: number } }>((resolve) => {
      answers.set(++id, resolve as (answer: unknown) => void);
      socket.send(JSON.stringify({ id, jsonrpc: "2.0", method, params }));
    });
  return { socket, call, received };
}

describe("WalletConnect relay", () => {
  it("keeps a message until a subscriber other than its publisher comes, and never echoes it", async () => {
    relay = await startWalletConnectRelay();
    const dapp = await client(relay.url, "did:key:dapp");
    expect(await dapp.call("irn_subscribe", { topic: "t1" })).toMatchObject({ result: expect.any(String) });
    expect(await dapp.call("irn_publish", { topic: "t1", message: "hello", ttl: 300 })).toMatchObject({
      result: true,
    });
    // the same client again (a reconnect: same iss) does not get its own message either
    const dappAgain = await client(relay.url, "did:key:dapp");
    await dappAgain.call("irn_subscribe", { topic: "t1" });
    const wallet = await client(relay.url, "did:key:wallet");
    await wallet.call("irn_batchSubscribe", { topics: ["t1", "t2"] });
    await expect.poll(() => wallet.received.length).toBe(1);
    expect(wallet.received[0]).toMatchObject({
      method: "irn_subscription",
      params: { data: { topic: "t1", message: "hello" } },
    });
    expect(dapp.received).toEqual([]);
    expect(dappAgain.received).toEqual([]);
    // delivered once: a later subscriber gets nothing
    const late = await client(relay.url, "did:key:late");
    await late.call("irn_subscribe", { topic: "t1" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(late.received).toEqual([]);
  });

  it("subscribes the proposer and the approver (wc_proposeSession, wc_approveSession)", async () => {
    relay = await startWalletConnectRelay();
    const dapp = await client(relay.url, "did:key:dapp");
    const wallet = await client(relay.url, "did:key:wallet");
    await dapp.call("wc_proposeSession", { pairingTopic: "pairing", sessionProposal: "proposal", ttl: 300 });
    await wallet.call("irn_subscribe", { topic: "pairing" });
    await expect.poll(() => wallet.received.map((m) => m.params.data.message)).toEqual(["proposal"]);
    await wallet.call("wc_approveSession", {
      pairingTopic: "pairing",
      sessionTopic: "session",
      sessionProposalResponse: "response",
      sessionSettlementRequest: "settle",
      ttl: 300,
    });
    // the dapp hears the response on the pairing topic: wc_proposeSession subscribed it
    await expect.poll(() => dapp.received.map((m) => m.params.data.message)).toEqual(["response"]);
    await dapp.call("irn_subscribe", { topic: "session" });
    await expect.poll(() => dapp.received.map((m) => m.params.data.message)).toEqual(["response", "settle"]);
    // and the wallet was subscribed to the session topic by its approval
    await dapp.call("irn_publish", { topic: "session", message: "request", ttl: 300 });
    await expect
      .poll(() => wallet.received.map((m) => m.params.data.message))
      .toEqual(["proposal", "request"]);
  });

  it("answers an unknown method with -32601, and closes every connection on close()", async () => {
    relay = await startWalletConnectRelay();
    const c = await client(relay.url, "did:key:c");
    expect(await c.call("irn_nope", {})).toMatchObject({ error: { code: -32601 } });
    expect(relay.connections()).toBe(1);
    const closed = once(c.socket, "close");
    await relay.close();
    await closed;
    await relay.close(); // idempotent
  });

  it("pings its clients (so that they keep the socket), and stops when closed", async () => {
    relay = await startWalletConnectRelay({ pingMs: 30 });
    const c = await client(relay.url, "did:key:c");
    await once(c.socket, "ping");
    const clear = vi.spyOn(globalThis, "clearInterval");
    try {
      await relay.close();
      expect(clear).toHaveBeenCalledTimes(1);
    } finally {
      clear.mockRestore();
    }
  });

  it("runs as a process: one ready line with its URL, stopped by SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(HERE, "relayCli.ts")], {
      env: { ...process.env, RELAY_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const ready = JSON.parse(line) as { event: string; url: string };
      expect(ready).toEqual({ event: "ready", url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/) });
      const c = await client(ready.url, "did:key:cli");
      expect(await c.call("irn_subscribe", { topic: "t" })).toHaveProperty("result");
      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
