import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { Service } from "@latchkey/server";
import { address, lamports } from "@solana/kit";
import type { Browser, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { expect } from "vitest";
import type { ChainStack } from "../../test-support/chain";
import { sharedChainStack } from "../../test-support/chain/shared";
import { sharedChromium } from "../../test-support/chromium";
import { devMailbox, startTestService } from "../../test-support/service";
import { type SolanaRpcNode, startSolanaRpc } from "../../test-support/solana/rpc";
import { type DemoEnv, pageDir } from "./pages";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const ARTIFACTS = join(root, "e2e", "artifacts");

/** A second app on the service whose signer config is magic-link. */
export const MAGIC_LINK_APP = { id: "ml", apiKey: "lk_e2e_magic_link_app_key_000001" };

export interface Stack {
  service: Service;
  serviceUrl: string;
  devApiKey: string;
  hostOrigin: string;
  browser: Browser;
  /** The newest mail to `to` after the first `after` (waits for it). */
  mail(to: string, after?: number): Promise<{ subject: string; text: string }>;
  mailCount(to: string): number;
  otpCode(to: string, after?: number): Promise<string>;
  magicLink(to: string, after?: number): Promise<string>;
  /**
   * The next page load whose query has `param` is answered with a blank page instead of the app (so it
   * cannot act on it); resolves with that URL.
   */
  holdNextLoadWith(param: string): Promise<string>;
  /** With `chain: true`: the local chain, bundler and paymaster the service sponsors the dev app on. */
  chain: ChainStack | undefined;
  /**
   * With `solana: true`: the local Solana node (litesvm) the service sponsors the dev app's Solana
   * transactions on, its fee payer (funded with `FEE_PAYER_LAMPORTS`) and the dev app's policy.
   */
  solana: { node: SolanaRpcNode; feePayer: string; policyId: string } | undefined;
  close(): Promise<void>;
}

/** What the service's Solana fee payer is given at start in a stack with `solana: true`: 1,000 SOL. */
export const FEE_PAYER_LAMPORTS = 1_000_000_000_000n;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * One service (own SQLite file, dev mailbox) and one host app built for production with Vite and served
 * on a free port, plus Chromium. `app: "demo"` builds apps/demo; `"host"` the e2e host (e2e/host), whose
 * page reads its config from the query string; `"wagmi"` the wagmi page (e2e/wagmi), a dapp on @wagmi/core
 * with the latchkey() connector; `"rainbowkit"` the RainbowKit page (e2e/rainbowkit). The e2e pages find the service, the dev app's key and (with `chain: true`)
 * the chain in `window.LK_E2E`.
 */
export async function startStack(
  app: "demo" | "host" | "wagmi" | "rainbowkit",
  /**
   * `hostName: "localhost"` serves the app and the service as http://localhost:PORT: a secure context
   * whose host is the dev app's WebAuthn relying party (passkey tests), the service on the app's site.
   */
  opts: {
    hostName?: string;
    /**
     * Start the local chain (hardhat, EntryPoint v0.8, bundler, paymaster, Counter): the service sponsors
     * the dev app's users on it, and the demo shows the smart account.
     */
    chain?: boolean;
    /**
     * Start a Solana node (litesvm): the service's fee payer (funded) sponsors the dev app's Solana
     * transactions there (policy `dev-solana`), and the demo shows the Solana card.
     */
    solana?: boolean;
    /** The service's clock (tests move it forward instead of waiting). */
    now?: () => number;
    /** Also deliver every mail to this SMTP server (the dev mailbox keeps its copy). */
    smtpUrl?: string;
    /**
     * `"development"`: the host page built with that `process.env.NODE_ENV` (a dev build, as `vite` serves
     * it). Unset: the test process's own (vitest's "test").
     */
    nodeEnv?: "development";
    /** How the dev app keeps wallets (`split`: made in the auth frame, every signature needs its share). */
    devCustody?: "service" | "split";
  } = {},
): Promise<Stack> {
  const hostName = opts.hostName ?? "127.0.0.1";
  const dir = mkdtempSync(join(tmpdir(), "latchkey-e2e-"));
  let outDir = join(dir, "dist");
  let inject = "";
  let hold: { param: string; resolve: (url: string) => void } | undefined;
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", hostOrigin);
    if (hold && url.searchParams.has(hold.param)) {
      hold.resolve(url.toString());
      hold = undefined;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end("<!doctype html><title>held</title>");
      return;
    }
    const path = url.pathname;
    const file = normalize(join(outDir, path));
    let body: Buffer;
    let type = TYPES[extname(file)];
    try {
      if (!file.startsWith(outDir) || !type || path === "/") throw new Error("index");
      body = readFileSync(file);
    } catch {
      type = TYPES[".html"];
      body = Buffer.from(
        readFileSync(join(outDir, "index.html"), "utf8").replace("<head>", `<head>${inject}`),
      );
    }
    res.writeHead(200, { "content-type": type ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const hostOrigin = `http://${hostName}:${(http.address() as AddressInfo).port}`;

  const chain = opts.chain ? await sharedChainStack() : undefined;
  const solanaNode = opts.solana ? await startSolanaRpc() : undefined;
  const testService = await startTestService({
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.smtpUrl ? { smtpUrl: opts.smtpUrl } : {}),
    ...(solanaNode ? { solana: { rpcUrl: solanaNode.url } } : {}),
    ...(chain
      ? {
          chains: [
            {
              chainId: chain.chainId,
              rpcUrl: chain.rpcUrl,
              paymaster: chain.paymaster,
              // The service sends the user operations an app's backend asks for (grants) to it.
              bundlerUrl: chain.bundlerUrl,
            },
          ],
        }
      : {}),
    ...(opts.devCustody ? { devCustody: opts.devCustody } : {}),
    db: join(dir, "latchkey.db"),
    dev: true,
    dataDir: dir,
    devOrigins: [hostOrigin],
    devMagicLinkUrls: [`${hostOrigin}/`],
    apps: [
      {
        id: MAGIC_LINK_APP.id,
        name: "Magic link app",
        apiKeys: [MAGIC_LINK_APP.apiKey],
        allowedOrigins: [hostOrigin],
        emailMode: "MAGIC_LINK",
        magicLinkRedirectUrls: [`${hostOrigin}/`],
      },
    ],
  });
  const { service } = testService;
  const serviceUrl = testService.url.replace("127.0.0.1", hostName);
  const devApiKey = testService.devApiKey as string;
  const e2eChain = chain && {
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    bundlerUrl: chain.bundlerUrl,
    counter: chain.counter,
    policyId: `dev-${chain.chainId}`,
  };
  inject = `<script>window.LK_E2E=${JSON.stringify({ serviceUrl, devApiKey, magicLink: MAGIC_LINK_APP, chain: e2eChain })}</script>`;

  if (chain) await chain.addPaymasterSigner(await service.paymasterSignerAddress());
  let solana: Stack["solana"];
  if (solanaNode) {
    const feePayer = await service.solanaFeePayerAddress();
    solanaNode.svm.airdrop(address(feePayer), lamports(FEE_PAYER_LAMPORTS));
    solana = { node: solanaNode, feePayer, policyId: "dev-solana" };
  }
  const demoEnv: DemoEnv | undefined =
    app === "demo"
      ? {
          VITE_LATCHKEY_URL: serviceUrl,
          VITE_LATCHKEY_API_KEY: devApiKey,
          VITE_LATCHKEY_MAILBOX: `${serviceUrl}/dev/mailbox`,
          VITE_LATCHKEY_CHAIN: e2eChain ? JSON.stringify(e2eChain) : "",
          // External wallets on the same chain (the demo's wallet sign-in); WalletConnect has its own tests.
          VITE_LATCHKEY_WALLETS: chain
            ? JSON.stringify({ chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl }] })
            : "",
          VITE_LATCHKEY_SOLANA: solana
            ? JSON.stringify({
                rpcUrl: solana.node.url,
                policyId: solana.policyId,
                feePayer: solana.feePayer,
              })
            : "",
        }
      : undefined;
  if (demoEnv) inject += `<script>window.LK_DEMO_ENV=${JSON.stringify(demoEnv)}</script>`;
  // The run's one build of the page (pages.ts), served from where it is.
  outDir = await pageDir(app === "host" && opts.nodeEnv ? "host-development" : app, outDir);

  const browser = await sharedChromium();
  mkdirSync(ARTIFACTS, { recursive: true });

  const mailbox = devMailbox(service);
  return {
    service,
    serviceUrl,
    devApiKey,
    hostOrigin,
    browser,
    mail: mailbox.mail,
    mailCount: mailbox.count,
    holdNextLoadWith: (param) =>
      new Promise<string>((resolve) => {
        hold = { param, resolve };
      }),
    otpCode: mailbox.otpCode,
    magicLink: mailbox.magicLink,
    chain,
    solana,
    async close() {
      // Teardown never hangs a run: Chromium gets 15 s to close, and open keep-alive sockets are dropped.
      await Promise.race([browser.close(), new Promise((r) => setTimeout(r, 15_000))]);
      await testService.close();
      await chain?.stop();
      await solanaNode?.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of the page as e2e/artifacts/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), animations: "disabled" });
}

/** Types the code into the OTP boxes one digit at a time (the sixth submits). */
export async function typeOtp(page: Page, code: string): Promise<void> {
  await page.getByLabel("Digit 1 of 6").focus();
  await page.keyboard.type(code, { delay: 20 });
}

/** Email sign-in on the host page (an OTP app) from its "Open sign-in" button, up to the code's answer. */
export async function signInOnHost(s: Stack, page: Page, email: string): Promise<void> {
  const dialog = page.getByRole("dialog");
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog.waitFor();
  const sent = s.mailCount(email);
  await dialog.getByRole("textbox").fill(email);
  const submit = dialog.locator("button[type=submit]");
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
  await dialog.getByRole("heading", { name: "Enter verification code" }).waitFor();
  await typeOtp(page, await s.otpCode(email, sent));
}

/** Signs "e2e" from the host page's Sign button; viem verifies the signature for `address`. */
export async function signOnHostAs(page: Page, address: string): Promise<void> {
  const out = page.getByTestId("signature");
  await out.evaluate((el) => {
    el.textContent = "";
  });
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await out.filter({ hasText: "0x" }).waitFor();
  const signature = (await out.textContent()) as Hex;
  expect(await verifyMessage({ address: address as Hex, message: "e2e", signature })).toBe(true);
}

/**
 * Signs a new user up in the demo by email code, as a person would: Sign in, the address, Continue, the
 * code from the dev mailbox; then skips the passkey the demo offers after sign-up (the passkey flow has
 * its own tests) and waits for the modal to close.
 */
export async function signUpInDemo(s: Stack, page: Page, email: string): Promise<void> {
  await page.locator(".nav").getByRole("button", { name: "Sign in" }).click();
  await page.getByPlaceholder("Email").fill(email);
  const sent = s.mailCount(email);
  await page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
  await typeOtp(page, await s.otpCode(email, sent));
  await page.getByTestId("evm-address").waitFor();
  await skipPasskeyOffer(page);
  await page.getByRole("dialog").waitFor({ state: "detached" });
}

/**
 * Skips the passkey the modal may offer after a sign-up (the passkey flow has its own tests): waits for
 * whichever comes first, the offer or the modal closing without one (a bounded poll, no fixed wait that a
 * slow machine could outlast), and answers whether there was an offer.
 */
export async function skipPasskeyOffer(page: Page): Promise<boolean> {
  const modal = page.locator(".lk-card[role=dialog]");
  const offer = modal.getByRole("heading", { name: "Add a passkey" });
  await expect.poll(async () => (await offer.count()) > 0 || (await modal.count()) === 0).toBe(true);
  if ((await offer.count()) === 0) return false;
  await modal.getByRole("button", { name: "Skip" }).click();
  return true;
}

/** Logs the page's errors and console errors; the answer collects the uncaught ones, for `toEqual([])`. */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => {
    console.error("pageerror", e.message);
    errors.push(e.message);
  });
  page.on("console", (m) => m.type() === "error" && console.error("console", m.text()));
  return errors;
}
