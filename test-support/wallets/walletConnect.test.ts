import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Address, type Hex, parseEther, toHex, verifyMessage, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../chain/index.js";
import { sharedChainStack } from "../chain/shared.js";
import {
  closeWalletConnectCore,
  startWalletConnectRelay,
  startWalletConnectWallet,
  type WalletConnectRelay,
  type WalletConnectWallet,
} from "./index.js";
import { universalProviderModule } from "./walletConnectModules.js";

const { UniversalProvider } = universalProviderModule();

const METHODS = [
  "personal_sign",
  "eth_signTypedData_v4",
  "eth_sendTransaction",
  "wallet_switchEthereumChain",
];

let stack: ChainStack;
let relay: WalletConnectRelay;
/** Every URL fetched while the tests run (WalletConnect's cloud must not be among them). */
const fetched: string[] = [];
const realFetch = globalThis.fetch;
/** What a test started, stopped after it. */
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  globalThis.fetch = (input, init) => {
    fetched.push(input instanceof Request ? input.url : String(input));
    return realFetch(input, init);
  };
  [stack, relay] = await Promise.all([sharedChainStack({ bundler: false }), startWalletConnectRelay()]);
});

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

afterAll(async () => {
  await Promise.all([stack?.stop(), relay?.close()]);
  globalThis.fetch = realFetch;
});

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    console.info(`${label}: ${Math.round(performance.now() - started)} ms`);
  }
}

async function fundedWallet(options: { approve?: boolean } = {}) {
  const account = privateKeyToAccount(generatePrivateKey());
  await stack.fund(account.address, parseEther("10"));
  const wallet = await timed("wallet init", () =>
    startWalletConnectWallet({
      relayUrl: relay.url,
      account,
      chains: [{ id: stack.chainId, rpcUrl: stack.rpcUrl }],
      ...options,
    }),
  );
  cleanups.push(() => wallet.close());
  return wallet;
}

/** A dapp: @walletconnect/universal-provider, as the app uses it, "scanning" its QR code with `wallet`. */
async function dapp(wallet: WalletConnectWallet) {
  const provider = await timed("dapp init", () =>
    UniversalProvider.init({
      projectId: "local-dev",
      relayUrl: relay.url,
      metadata: { name: "Latchkey test dapp", description: "", url: "http://127.0.0.1", icons: [] },
      customStoragePrefix: `dapp-${randomUUID()}`,
      storageOptions: { database: ":memory:" },
      telemetryEnabled: false,
      logger: "error",
    }),
  );
  provider.on("display_uri", (uri: string) => void wallet.pair(uri));
  cleanups.push(async () => {
    if (provider.session) await provider.disconnect().catch(() => {});
    await closeWalletConnectCore(provider.client.core);
  });
  const connect = () =>
    provider.connect({
      optionalNamespaces: {
        eip155: {
          chains: [`eip155:${stack.chainId}`],
          methods: METHODS,
          events: ["chainChanged", "accountsChanged"],
          rpcMap: { [stack.chainId]: stack.rpcUrl },
        },
      },
    });
  return { provider, connect };
}

describe("WalletConnect relay + test wallet", () => {
  it("connects a universal-provider dapp, signs, and sends a transaction mined on the local chain", async () => {
    const wallet = await fundedWallet();
    const { provider, connect } = await dapp(wallet);
    const session = await timed("connect (pair + session)", connect);
    expect(session?.namespaces.eip155?.accounts).toEqual([`eip155:${stack.chainId}:${wallet.address}`]);
    expect(wallet.sessions()).toHaveLength(1);

    const accounts = await provider.request<Address[]>({ method: "eth_requestAccounts" });
    expect(accounts).toEqual([wallet.address]);
    expect(await provider.request<number>({ method: "eth_chainId" })).toBe(stack.chainId);

    const message = toHex("hello from the dapp");
    const signature = await timed("personal_sign", () =>
      provider.request<Hex>({ method: "personal_sign", params: [message, wallet.address] }),
    );
    expect(await verifyMessage({ address: wallet.address, message: { raw: message }, signature })).toBe(true);

    const typed = {
      domain: { name: "Latchkey", version: "1", chainId: stack.chainId },
      types: { Greeting: [{ name: "text", type: "string" }] },
      primaryType: "Greeting" as const,
      message: { text: "hi" },
    };
    const typedSignature = await provider.request<Hex>({
      method: "eth_signTypedData_v4",
      params: [wallet.address, JSON.stringify(typed)],
    });
    expect(await verifyTypedData({ address: wallet.address, signature: typedSignature, ...typed })).toBe(
      true,
    );

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await timed("eth_sendTransaction", () =>
      provider.request<Hex>({
        method: "eth_sendTransaction",
        params: [{ from: wallet.address, to: recipient, value: toHex(parseEther("0.25")) }],
      }),
    );
    const receipt = await stack.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await stack.publicClient.getBalance({ address: recipient })).toBe(parseEther("0.25"));
    expect(wallet.requests.map((r) => r.method)).toEqual([
      "personal_sign",
      "eth_signTypedData_v4",
      "eth_sendTransaction",
    ]);
    expect(wallet.requests[0]?.chainId).toBe(stack.chainId);
  });

  it("makes connect() fail when the user rejects the proposal", async () => {
    const wallet = await fundedWallet({ approve: false });
    const { connect } = await dapp(wallet);
    await expect(timed("rejected connect", connect)).rejects.toMatchObject({ code: 5000 });
    expect(wallet.proposals).toHaveLength(1);
    expect(wallet.sessions()).toHaveLength(0);
  });

  it("rejects a request when told to, and lets a held one wait", async () => {
    const wallet = await fundedWallet();
    const { provider, connect } = await dapp(wallet);
    await connect();
    const sign = () =>
      provider.request<Hex>({ method: "personal_sign", params: [toHex("x"), wallet.address] });

    wallet.rejectNext("personal_sign");
    await expect(sign()).rejects.toMatchObject({ code: 5000, message: "User rejected." });
    await expect(sign()).resolves.toMatch(/^0x/);

    const release = wallet.hold("personal_sign");
    let settled = false;
    const pending = sign().finally(() => {
      settled = true;
    });
    await expect.poll(() => wallet.held("personal_sign")).toBe(1);
    expect(settled).toBe(false);
    release("reject");
    await expect(pending).rejects.toMatchObject({ code: 5000 });
  });

  it("emits chainChanged to the dapp when the wallet switches chain", async () => {
    const wallet = await fundedWallet();
    const { provider, connect } = await dapp(wallet);
    await connect();
    const changed = new Promise((resolve) => provider.on("chainChanged", resolve));
    await wallet.switchChain(stack.chainId);
    expect(Number(await changed)).toBe(stack.chainId);
  });

  it("lets several wallets and dapps live in one process, writes no storage file, and calls no cloud", async () => {
    const [a, b] = await Promise.all([fundedWallet(), fundedWallet()]);
    const [dappA, dappB] = await Promise.all([dapp(a), dapp(b)]);
    await Promise.all([dappA.connect(), dappB.connect()]);
    expect(await dappA.provider.request({ method: "eth_accounts" })).toEqual([a.address]);
    expect(await dappB.provider.request({ method: "eth_accounts" })).toEqual([b.address]);
    for (const dir of [process.cwd(), homedir()])
      expect(existsSync(join(dir, "walletconnect.db"))).toBe(false);
    const external = fetched.filter((url) => !url.startsWith("http://127.0.0.1"));
    expect(external).toEqual([]);
  });

  it("leaves no connection open at the relay once everything is closed", async () => {
    const wallet = await fundedWallet();
    const { connect } = await dapp(wallet);
    await connect();
    expect(relay.connections()).toBeGreaterThanOrEqual(2);
    await Promise.all(cleanups.splice(0).map((c) => c()));
    await expect.poll(() => relay.connections()).toBe(0);
  });
});
