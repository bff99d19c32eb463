import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { type Hex, parseEther, toHex, verifyMessage } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../chain/index.js";
import { sharedChainStack } from "../chain/shared.js";
import { sharedChromium } from "../chromium.js";
import {
  startWalletConnectRelay,
  startWalletConnectWallet,
  type WalletConnectRelay,
  type WalletConnectWallet,
} from "./index.js";

/*
 * The dapp side of WalletConnect in Chromium: @walletconnect/universal-provider bundled for the browser (as the
 * app's Vite build bundles it), connecting through the local relay to the test wallet in this process.
 */

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The page's app: a thin `window.dapp` over UniversalProvider; the QR code "scan" is the `__pair` binding. */
const APP = `
import { UniversalProvider } from "@walletconnect/universal-provider";
let provider;
window.dapp = {
  async connect({ relayUrl, chainId, rpcUrl }) {
    provider = await UniversalProvider.init({
      projectId: "local-dev",
      relayUrl,
      customStoragePrefix: "dapp",
      telemetryEnabled: false,
      logger: "error",
      metadata: { name: "Latchkey browser dapp", description: "", url: location.origin, icons: [] },
    });
    provider.on("display_uri", (uri) => window.__pair(uri));
    const session = await provider.connect({
      optionalNamespaces: {
        eip155: {
          chains: ["eip155:" + chainId],
          methods: ["personal_sign", "eth_sendTransaction"],
          events: ["chainChanged", "accountsChanged"],
          rpcMap: { [chainId]: rpcUrl },
        },
      },
    });
    return session.namespaces.eip155.accounts;
  },
  request: (method, params) => provider.request({ method, params }),
};
`;

/**
 * WalletConnect's test switch (`isTestRun()`: `typeof process < "u" && process.env.IS_VITEST === "true"`) for
 * the page: without it the dapp side loads https://verify.walletconnect.org in a hidden iframe before each
 * proposal and request, and offline waits its 5 s timeout every time. With it on, sign-client's init reads
 * `global?.Linking` (React Native's), which throws "ReferenceError: global is not defined" in a browser unless
 * `global` exists: hence the second line.
 */
const IS_VITEST_SCRIPT = `window.process = { env: { IS_VITEST: "true" } }; window.global ??= window;`;

let stack: ChainStack;
let relay: WalletConnectRelay;
let browser: Browser;
let server: Server;
let pageUrl: string;
let buildDir: string;
const cleanups: (() => Promise<unknown>)[] = [];

/** Bundles APP with esbuild; `viteLike`: as a Vite production build treats `process.env` (see below). */
async function bundle(outfile: string, viteLike: boolean) {
  await build({
    stdin: { contents: APP, resolveDir: REPO, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outfile,
    logLevel: "error",
    // Vite's build replaces `process.env` with `{}` in client code, which turns the test switch off whatever
    // the page sets; mapping that one variable back to the page's `process` (the app's vite.config `define`)
    // keeps it working.
    define: viteLike
      ? { "process.env": "{}", "process.env.IS_VITEST": "globalThis.process.env.IS_VITEST" }
      : {},
  });
}

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "latchkey-wc-dapp-"));
  const started = performance.now();
  await Promise.all([bundle(join(buildDir, "app.js"), false), bundle(join(buildDir, "app-vite.js"), true)]);
  const bundleMs = Math.round(performance.now() - started);
  server = createServer((request, response) => {
    const script = /^\/(app(-vite)?\.js)$/.exec(request.url ?? "")?.[1];
    if (script) {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(readFileSync(join(buildDir, script)));
      return;
    }
    const app = request.url === "/vite" ? "app-vite.js" : "app.js";
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<!doctype html><title>dapp</title><script type="module" src="/${app}"></script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  [stack, relay, browser] = await Promise.all([
    sharedChainStack({ bundler: false }),
    startWalletConnectRelay(),
    sharedChromium(),
  ]);
  console.info(`esbuild bundles: ${bundleMs} ms; all set up: ${Math.round(performance.now() - started)} ms`);
});

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

afterAll(async () => {
  await Promise.all([
    browser?.close(),
    stack?.stop(),
    relay?.close(),
    new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined))),
  ]);
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** A wallet in this process, and a fresh page of the dapp wired to it; `external` collects off-machine requests. */
async function open(path = "", options: { approve?: boolean } = {}) {
  const account = privateKeyToAccount(generatePrivateKey());
  await stack.fund(account.address, parseEther("10"));
  const wallet = await startWalletConnectWallet({
    relayUrl: relay.url,
    account,
    chains: [{ id: stack.chainId, rpcUrl: stack.rpcUrl }],
    ...options,
  });
  const context = await browser.newContext();
  cleanups.push(() => context.close().then(() => wallet.close()));
  const page = await context.newPage();
  const external: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("http://127.0.0.1") && !r.url().startsWith("ws://127.0.0.1"))
      external.push(r.url());
  });
  await page.addInitScript({ content: IS_VITEST_SCRIPT });
  await page.exposeFunction("__pair", (uri: string) => wallet.pair(uri));
  await page.goto(pageUrl + path);
  await page.waitForFunction(() => "dapp" in window);
  return { page, wallet, external };
}

const connectArgs = () => ({ relayUrl: relay.url, chainId: stack.chainId, rpcUrl: stack.rpcUrl });

function connect(page: Page) {
  return page.evaluate(
    (args) => (window as unknown as { dapp: { connect(a: object): Promise<string[]> } }).dapp.connect(args),
    connectArgs(),
  );
}

function request<T>(page: Page, method: string, params: unknown[]): Promise<T> {
  return page.evaluate(
    ([method, params]) =>
      (window as unknown as { dapp: { request(m: string, p: unknown[]): Promise<unknown> } }).dapp.request(
        method,
        params,
      ),
    [method, params] as const,
  ) as Promise<T>;
}

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    console.info(`${label}: ${Math.round(performance.now() - started)} ms`);
  }
}

async function connectSignAndSend(page: Page, wallet: WalletConnectWallet, label: string) {
  const accounts = await timed(`${label}: connect`, () => connect(page));
  expect(accounts).toEqual([`eip155:${stack.chainId}:${wallet.address}`]);
  const message = toHex("hello from Chromium");
  const signature = await timed(`${label}: personal_sign`, () =>
    request<Hex>(page, "personal_sign", [message, wallet.address]),
  );
  expect(await verifyMessage({ address: wallet.address, message: { raw: message }, signature })).toBe(true);
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const hash = await timed(`${label}: eth_sendTransaction`, () =>
    request<Hex>(page, "eth_sendTransaction", [{ from: wallet.address, to: recipient, value: toHex(1234n) }]),
  );
  expect((await stack.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  expect(await stack.publicClient.getBalance({ address: recipient })).toBe(1234n);
}

describe("WalletConnect dapp in Chromium", () => {
  it("connects through the local relay to the test wallet, signs and sends, reaching no cloud", async () => {
    const { page, wallet, external } = await open();
    await connectSignAndSend(page, wallet, "browser (esbuild)");
    expect(external).toEqual([]);
  });

  it("works the same when built as Vite builds (process.env replaced), given the define", async () => {
    const { page, wallet, external } = await open("vite");
    await connectSignAndSend(page, wallet, "browser (Vite-like)");
    expect(external).toEqual([]);
  });

  it("fails connect() in the page when the user rejects the proposal", async () => {
    const { page } = await open("", { approve: false });
    // sign-client rejects with a plain { code, message } object, not an Error
    const error = await page.evaluate((args) => {
      const dapp = (window as unknown as { dapp: { connect(a: object): Promise<unknown> } }).dapp;
      return dapp.connect(args).then(
        () => undefined,
        (e: { code?: number; message?: string }) => ({ code: e.code, message: e.message }),
      );
    }, connectArgs());
    expect(error).toEqual({ code: 5000, message: "User rejected." });
  });
});
