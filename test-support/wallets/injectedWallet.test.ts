import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type Address, type Hex, parseEther, toHex, verifyMessage, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../chain/index.js";
import { sharedChainStack } from "../chain/shared.js";
import { sharedChromium } from "../chromium.js";
import { type InjectedWalletOptions, installInjectedWallet } from "./index.js";

/** A chain the wallet does not know at first (same node: only switching is tested on it). */
const OTHER_CHAIN = 1337;

let stack: ChainStack;
let browser: Browser;
let server: Server;
let pageUrl: string;
let context: BrowserContext | undefined;

/** A page with nothing on it but a script that records the EIP-1193 events of the provider it is given. */
const PAGE = `<!doctype html><html><head><title>dapp</title></head><body><iframe src="/frame"></iframe><script>
  window.events = [];
</script></body></html>`;

beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(request.url === "/frame" ? "<!doctype html><p>frame</p>" : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const started = performance.now();
  [stack, browser] = await Promise.all([sharedChainStack({ bundler: false }), sharedChromium()]);
  console.info(`chain + chromium: ${Math.round(performance.now() - started)} ms`);
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await Promise.all([
    browser?.close(),
    stack?.stop(),
    new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined))),
  ]);
});

type Answer = { result: unknown } | { error: { code: number; message: string } };

/** Discovers the test wallet the EIP-6963 way (as a dapp would) and keeps its provider as `window.provider`. */
async function discover(page: Page, rdns = "dev.latchkey.testwallet") {
  return page.evaluate((rdns) => {
    type Detail = { info: { rdns: string; name: string; uuid: string; icon: string }; provider: unknown };
    const found: Detail[] = [];
    const listener = (event: Event) => found.push((event as CustomEvent<Detail>).detail);
    window.addEventListener("eip6963:announceProvider", listener);
    window.dispatchEvent(new Event("eip6963:requestProvider"));
    window.removeEventListener("eip6963:announceProvider", listener);
    const mine = found.find((d) => d.info.rdns === rdns);
    const w = window as unknown as { provider: unknown; events: unknown[][] };
    w.provider = mine?.provider;
    if (mine) {
      const provider = mine.provider as { on(e: string, f: (...a: unknown[]) => void): void };
      for (const name of ["accountsChanged", "chainChanged"]) {
        provider.on(name, (...args) => w.events.push([name, ...args]));
      }
    }
    return found.map((d) => d.info);
  }, rdns);
}

/** `window.provider.request(...)` in the page, as a result or an error (code, message). */
function call(page: Page, method: string, params?: unknown[]): Promise<Answer> {
  return page.evaluate(
    ([method, params]) => {
      const provider = (window as unknown as { provider: { request(a: object): Promise<unknown> } }).provider;
      return provider.request({ method, params }).then(
        (result) => ({ result }),
        (e: { code: number; message: string }) => ({ error: { code: e.code, message: e.message } }),
      );
    },
    [method, params] as const,
  );
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { events: unknown[][] }).events);

async function setup(options: Partial<InjectedWalletOptions> = {}, on: "page" | "context" = "page") {
  const account = privateKeyToAccount(generatePrivateKey());
  await stack.fund(account.address, parseEther("10"));
  context = await browser.newContext();
  const page = await context.newPage();
  const wallet = await installInjectedWallet(on === "page" ? page : context, {
    account,
    chains: [{ id: stack.chainId, rpcUrl: stack.rpcUrl }],
    ...options,
  });
  await page.goto(pageUrl);
  return { account, page, wallet };
}

describe("injected EIP-6963 test wallet", () => {
  it("is announced, connects, signs and sends a transaction that lands on the chain", async () => {
    const started = performance.now();
    const { page, wallet } = await setup();
    const infos = await discover(page);
    expect(infos).toEqual([
      expect.objectContaining({
        name: "Latchkey Test Wallet",
        rdns: "dev.latchkey.testwallet",
        uuid: wallet.info.uuid,
      }),
    ]);
    expect(infos[0]?.icon).toMatch(/^data:image\/svg\+xml,/);

    expect(await call(page, "eth_accounts")).toEqual({ result: [] });
    expect(await call(page, "personal_sign", [toHex("x"), wallet.address])).toMatchObject({
      error: { code: 4100 },
    });
    expect(await call(page, "eth_requestAccounts")).toEqual({ result: [wallet.address] });
    expect(wallet.connected).toBe(true);
    expect(await call(page, "eth_accounts")).toEqual({ result: [wallet.address] });
    expect(await call(page, "eth_chainId")).toEqual({ result: toHex(stack.chainId) });

    const message = toHex("sign me");
    const signed = await call(page, "personal_sign", [message, wallet.address]);
    const signature = (signed as { result: Hex }).result;
    expect(await verifyMessage({ address: wallet.address, message: { raw: message }, signature })).toBe(true);

    const typed = {
      domain: { name: "Latchkey", version: "1", chainId: stack.chainId },
      types: { Greeting: [{ name: "text", type: "string" }] },
      primaryType: "Greeting" as const,
      message: { text: "hi" },
    };
    const typedAnswer = await call(page, "eth_signTypedData_v4", [wallet.address, JSON.stringify(typed)]);
    const typedSignature = (typedAnswer as { result: Hex }).result;
    expect(await verifyTypedData({ address: wallet.address, signature: typedSignature, ...typed })).toBe(
      true,
    );

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const sent = await call(page, "eth_sendTransaction", [
      { from: wallet.address, to: recipient, value: toHex(parseEther("0.5")) },
    ]);
    const hash = (sent as { result: Hex }).result;
    expect((await stack.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await stack.publicClient.getBalance({ address: recipient })).toBe(parseEther("0.5"));
    // reads go to the node
    const balance = await call(page, "eth_getBalance", [recipient, "latest"]);
    expect(balance).toEqual({ result: toHex(parseEther("0.5")) });
    expect(wallet.calls.map((c) => c.method)).toContain("eth_sendTransaction");
    expect(wallet.calls[0]?.origin).toBe(pageUrl);
    console.info(`injected wallet flow: ${Math.round(performance.now() - started)} ms`);
  });

  it("rejects as the user would: rejectNext once, setRejecting until cleared", async () => {
    const { page, wallet } = await setup({ connected: true });
    await discover(page);
    const rejected = { error: { code: 4001, message: "User rejected the request." } };
    wallet.rejectNext("eth_requestAccounts");
    expect(await call(page, "eth_requestAccounts")).toEqual(rejected);
    expect(await call(page, "eth_requestAccounts")).toEqual({ result: [wallet.address] });

    wallet.setRejecting(["personal_sign", "eth_sendTransaction"]);
    expect(await call(page, "personal_sign", [toHex("x"), wallet.address])).toEqual(rejected);
    expect(await call(page, "personal_sign", [toHex("x"), wallet.address])).toEqual(rejected);
    wallet.setRejecting([]);
    expect(await call(page, "personal_sign", [toHex("x"), wallet.address])).toHaveProperty("result");
  });

  it("answers 4902 for an unknown chain, then adds it, switches and tells the page", async () => {
    const { page, wallet } = await setup({
      chains: [
        { id: stack.chainId, rpcUrl: stack.rpcUrl },
        { id: OTHER_CHAIN, rpcUrl: stack.rpcUrl, added: false },
      ],
    });
    await discover(page);
    const switchTo = (id: number) => call(page, "wallet_switchEthereumChain", [{ chainId: toHex(id) }]);
    expect(await switchTo(OTHER_CHAIN)).toMatchObject({ error: { code: 4902 } });
    expect(wallet.chainId).toBe(stack.chainId);

    const add = await call(page, "wallet_addEthereumChain", [
      {
        chainId: toHex(OTHER_CHAIN),
        chainName: "Other",
        rpcUrls: ["http://unused.invalid"],
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      },
    ]);
    expect(add).toEqual({ result: null });
    // like MetaMask, adding switches to it (wagmi expects that)
    expect(await call(page, "eth_chainId")).toEqual({ result: toHex(OTHER_CHAIN) });
    expect(await events(page)).toEqual([["chainChanged", toHex(OTHER_CHAIN)]]);

    expect(await switchTo(stack.chainId)).toEqual({ result: null });
    expect(await switchTo(OTHER_CHAIN)).toEqual({ result: null });
    expect(await events(page)).toEqual([
      ["chainChanged", toHex(OTHER_CHAIN)],
      ["chainChanged", toHex(stack.chainId)],
      ["chainChanged", toHex(OTHER_CHAIN)],
    ]);
    expect(wallet.chains().find((c) => c.id === OTHER_CHAIN)?.rpcUrl).toBe(stack.rpcUrl);
  });

  it("lets the test act as the wallet's user: switch network, disconnect, emit, hold, delay", async () => {
    const { page, wallet } = await setup({}, "context");
    await discover(page);
    await call(page, "eth_requestAccounts");
    await wallet.disconnect();
    await wallet.connect();
    await wallet.emit("chainChanged", "0x1");
    expect(await events(page)).toEqual([
      ["accountsChanged", [wallet.address]], // connecting tells the page, as MetaMask does
      ["accountsChanged", []],
      ["accountsChanged", [wallet.address]],
      ["chainChanged", "0x1"],
    ]);
    await expect(wallet.switchChain(OTHER_CHAIN)).rejects.toMatchObject({ code: 4902 });

    const release = wallet.hold("personal_sign");
    const pending = call(page, "personal_sign", [toHex("x"), wallet.address]);
    await expect.poll(() => wallet.held("personal_sign")).toBe(1);
    release("reject");
    expect(await pending).toEqual({ error: { code: 4001, message: "User rejected the request." } });

    wallet.setDelay("eth_chainId", 300);
    const started = performance.now();
    await call(page, "eth_chainId");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    wallet.setDelay("eth_chainId", 0);

    // on a context, every page (and frame) gets it, and they share the wallet's state
    const second = await context!.newPage();
    await second.goto(pageUrl);
    expect(await discover(second)).toHaveLength(1);
    expect(await call(second, "eth_accounts")).toEqual({ result: [wallet.address] });
    const frame = second.frames()[1]!;
    const inFrame = await frame.evaluate(() => {
      let count = 0;
      window.addEventListener("eip6963:announceProvider", () => count++);
      window.dispatchEvent(new Event("eip6963:requestProvider"));
      return count;
    });
    expect(inFrame).toBe(1);
    await call(second, "wallet_revokePermissions", [{ eth_accounts: {} }]);
    expect(await call(page, "eth_accounts")).toEqual({ result: [] });
    expect((await events(page)).at(-1)).toEqual(["accountsChanged", []]);
  });

  it("answers wagmi's permission calls, and reports unsupported wallet methods", async () => {
    const { page, wallet } = await setup();
    await discover(page);
    expect(await call(page, "wallet_getPermissions")).toEqual({ result: [] });
    const answer = (await call(page, "wallet_requestPermissions", [{ eth_accounts: {} }])) as {
      result: { parentCapability: string; caveats: { value: Address[] }[] }[];
    };
    expect(answer.result[0]?.parentCapability).toBe("eth_accounts");
    expect(answer.result[0]?.caveats[0]?.value).toEqual([wallet.address]);
    expect(await call(page, "wallet_sendCalls", [{}])).toMatchObject({ error: { code: 4200 } });
    expect(await call(page, "eth_blockNumber")).toHaveProperty("result");
  });

  it("answers 4200 for the methods it is set up without, and leaves its chain alone", async () => {
    const { page, wallet } = await setup({
      chains: [
        { id: stack.chainId, rpcUrl: stack.rpcUrl },
        { id: OTHER_CHAIN, rpcUrl: stack.rpcUrl },
      ],
      unsupportedMethods: ["wallet_switchEthereumChain"],
    });
    await discover(page);
    expect(await call(page, "wallet_switchEthereumChain", [{ chainId: toHex(OTHER_CHAIN) }])).toEqual({
      error: { code: 4200, message: "The wallet does not support wallet_switchEthereumChain." },
    });
    expect(wallet.chainId).toBe(stack.chainId);
    expect(await events(page)).toEqual([]);
    expect(await call(page, "eth_chainId")).toEqual({ result: toHex(stack.chainId) });
  });

  it("is absent from a page it was not installed on", async () => {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(pageUrl);
    expect(await discover(page)).toEqual([]);
  });
});
