import type { BrowserContext, Page } from "playwright-core";
import { formatEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalNode, startLocalNode } from "../test-support/chain";
import {
  type InjectedWallet,
  installInjectedWallet,
  startWalletConnectRelay,
  startWalletConnectWallet,
  type WalletConnectRelay,
  type WalletConnectWallet,
} from "../test-support/wallets";
import { type Stack, shot, startStack } from "./helpers/stack";

// External wallets in the modal against the real service, a real local chain and an EIP-6963 wallet whose
// key stays in this process: the wallet list, connecting (with Sign-In with Ethereum), the error views,
// reconnecting from the cookie after a reload, switching chain, and sending from the wallet.
let s: Stack;
let other: LocalNode;
beforeAll(async () => {
  [s, other] = await Promise.all([startStack("host", { chain: true }), startLocalNode({ chainId: 31338 })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([s?.close(), other?.stop()]);
});

const SECTIONS = [[{ type: "email" }], [{ type: "external_wallets" }]];
const WALLET = "Latchkey Test Wallet";
const DEAD = "0x000000000000000000000000000000000000dEaD";

function hostUrl(wallets: Record<string, unknown> = {}, ui: Record<string, unknown> = {}): string {
  const chain = s.chain as NonNullable<Stack["chain"]>;
  const config = {
    chains: [
      { id: chain.chainId, rpcUrl: chain.rpcUrl },
      { id: other.chainId, rpcUrl: other.rpcUrl },
    ],
    ...wallets,
  };
  const q = new URLSearchParams({
    ui: JSON.stringify({ sections: SECTIONS, ...ui }),
    wallets: JSON.stringify(config),
  });
  return `${s.hostOrigin}/?${q}`;
}

async function newPage(
  opts: {
    wallet?: boolean;
    chains?: { id: number; rpcUrl: string; added?: boolean }[];
    unsupportedMethods?: string[];
  } = {},
): Promise<{ context: BrowserContext; page: Page; wallet: InjectedWallet | undefined; address: Hex }> {
  const chain = s.chain as NonNullable<Stack["chain"]>;
  const context = await s.browser.newContext({ viewport: { width: 1100, height: 900 } });
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.fund(account.address, 10n ** 18n);
  const wallet =
    opts.wallet === false
      ? undefined
      : await installInjectedWallet(context, {
          account,
          chains: opts.chains ?? [
            { id: chain.chainId, rpcUrl: chain.rpcUrl },
            { id: other.chainId, rpcUrl: other.rpcUrl, added: false },
          ],
          ...(opts.unsupportedMethods ? { unsupportedMethods: opts.unsupportedMethods } : {}),
        });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  page.on("console", (m) => m.type() === "error" && console.error("console", m.text()));
  return { context, page, wallet, address: account.address };
}

const dialog = (page: Page) => page.getByRole("dialog");

async function openWalletList(page: Page, url = hostUrl()) {
  await page.goto(url);
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).getByRole("button", { name: "Continue with a wallet" }).click();
  await dialog(page).getByRole("heading", { name: "Select your wallet" }).waitFor();
}

describe("external wallets: injected (EIP-6963)", () => {
  it("lists the announced wallet, connects it with a signed SIWE message, and the service vouches for it", async () => {
    const { context, page, wallet, address } = await newPage();
    try {
      await openWalletList(page);
      const button = dialog(page).getByRole("button", { name: WALLET });
      await expect.poll(() => button.locator("img").getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
      await shot(page, "wallet-pick-eoa");
      const held = wallet?.hold("personal_sign");
      await button.click();
      await dialog(page)
        .getByRole("heading", { name: `Connecting to ${WALLET}` })
        .waitFor();
      await dialog(page)
        .getByText("Please follow the instructions in your wallet to connect.")
        .waitFor({ state: "visible" });
      await expect.poll(() => wallet?.held("personal_sign")).toBe(1);
      await shot(page, "wallet-eoa-connect");
      held?.("proceed");
      await dialog(page).waitFor({ state: "detached" });

      expect(await page.evaluate(() => [window.lkSuccess, window.lkEvents])).toEqual([1, ["eoa_connected"]]);
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-address").textContent()).toBe(address);
      expect(await page.getByTestId("wallet-chain").textContent()).toBe(String(s.chain?.chainId));
      // The SIWE message was for this page, chain and a nonce of the service.
      const signed = wallet?.calls.find((c) => c.method === "personal_sign");
      const message = Buffer.from(String(signed?.params[0] ?? "").slice(2), "hex").toString();
      expect(message).toContain(
        `${new URL(s.hostOrigin).host} wants you to sign in with your Ethereum account:`,
      );
      expect(message).toContain(`URI: ${s.hostOrigin}`);
      expect(message).toContain(`Chain ID: ${s.chain?.chainId}`);
      // The app's backend checks the token with the service.
      const token = await page.getByTestId("wallet-siwe").textContent();
      const checked = await fetch(`${s.serviceUrl}/signer/v1/siwe/session`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${s.devApiKey}` },
        body: JSON.stringify({ token }),
      });
      expect(checked.status).toBe(200);
      expect(await checked.json()).toMatchObject({ address, chainId: s.chain?.chainId });

      // The most recent wallet is kept in a cookie for 400 days.
      const cookie = (await context.cookies()).find((c) => c.name === "latchkey.wallet.recentConnectorId");
      expect(cookie?.value).toBe("dev.latchkey.testwallet");
      const days = ((cookie?.expires ?? 0) - Date.now() / 1000) / 86_400;
      expect(days).toBeGreaterThan(399);
      expect(days).toBeLessThan(401);
    } finally {
      await context.close();
    }
  });

  it("reconnects after a reload, follows the wallet's account and chain, switches chain and sends", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const { context, page, wallet, address } = await newPage();
    try {
      await openWalletList(page);
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page).waitFor({ state: "detached" });
      const token = await page.getByTestId("wallet-siwe").textContent();

      await page.reload();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-address").textContent()).toBe(address);
      expect(await page.getByTestId("wallet-siwe").textContent()).toBe(token);
      expect(wallet?.calls.filter((c) => c.method === "personal_sign")).toHaveLength(1); // no second prompt

      // Switching to a chain the wallet does not know adds it first (wallet_addEthereumChain).
      await page.getByRole("button", { name: `Switch to ${other.chainId}` }).click();
      await expect.poll(() => page.getByTestId("wallet-chain").textContent()).toBe(String(other.chainId));
      expect(wallet?.calls.map((c) => c.method)).toContain("wallet_addEthereumChain");
      expect(wallet?.chainId).toBe(other.chainId);

      // The user changes network in the wallet: the page follows at once.
      await wallet?.switchChain(chain.chainId);
      await expect.poll(() => page.getByTestId("wallet-chain").textContent()).toBe(String(chain.chainId));

      // A single call goes out from the wallet as a plain transaction, and lands.
      const before = await chain.publicClient.getBalance({ address: DEAD });
      await page.getByRole("button", { name: "Send transaction" }).click();
      await expect.poll(() => page.getByTestId("wallet-result").textContent()).toMatch(/^0x[0-9a-f]{64}$/);
      const hash = (await page.getByTestId("wallet-result").textContent()) as Hex;
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(address.toLowerCase());
      expect(formatEther((await chain.publicClient.getBalance({ address: DEAD })) - before)).toBe(
        formatEther(1000n),
      );

      // A batch is a user operation: an external wallet cannot send it.
      await page.getByRole("button", { name: "Send batch" }).click();
      await expect
        .poll(() => page.getByTestId("wallet-result").textContent())
        .toMatch(/^error EOA_USER_OPERATION_UNSUPPORTED: Batch and hex user operations cannot be sent/);

      // Another account in the wallet: the page shows it, and the SIWE proof (for the old one) is gone.
      const next = privateKeyToAccount(generatePrivateKey()).address;
      await wallet?.emit("accountsChanged", [next]);
      await expect.poll(() => page.getByTestId("wallet-address").textContent()).toBe(next);
      expect(await page.getByTestId("wallet-siwe").count()).toBe(0);

      // Disconnect: nothing comes back after a reload.
      await page.getByRole("button", { name: "Disconnect wallet" }).click();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await page.reload();
      await page.getByTestId("wallet-status").waitFor();
      await page.waitForTimeout(500);
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      await context.close();
    }
  });

  it("a refused connection shows the wallet's error view, and Try again connects", async () => {
    const { context, page, wallet } = await newPage();
    try {
      await openWalletList(page);
      // wagmi asks for permissions first (MetaMask's connect prompt).
      wallet?.rejectNext("wallet_requestPermissions");
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page)
        .getByRole("heading", { name: `Couldn't connect to ${WALLET}` })
        .waitFor();
      await dialog(page).getByText("The wallet's connection failed or was canceled.").waitFor();
      await shot(page, "wallet-error");
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await dialog(page).getByRole("button", { name: "Try again" }).click();
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");

      // Refusing the SIWE signature also fails the sign-in, and leaves the wallet disconnected.
      await page.getByRole("button", { name: "Disconnect wallet" }).click();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await page.getByRole("button", { name: "Open sign-in" }).click();
      await dialog(page).getByRole("button", { name: "Continue with a wallet" }).click();
      wallet?.rejectNext("personal_sign");
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page)
        .getByRole("heading", { name: `Couldn't connect to ${WALLET}` })
        .waitFor();
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      await context.close();
    }
  });

  it("Cancel and Back leave a pending connection; no wallets shows 'No wallets available'", async () => {
    const { context, page, wallet } = await newPage();
    try {
      await openWalletList(page);
      const release = wallet?.hold("wallet_requestPermissions");
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page)
        .getByRole("heading", { name: `Connecting to ${WALLET}` })
        .waitFor();
      await dialog(page).getByRole("button", { name: "Back" }).click();
      await dialog(page).getByRole("heading", { name: "Select your wallet" }).waitFor();
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page).getByRole("button", { name: "Cancel" }).click();
      await dialog(page).getByRole("button", { name: "Continue with a wallet" }).waitFor();
      release?.("proceed");
      await page.waitForTimeout(300);
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await dialog(page).getByRole("button", { name: "Continue with a wallet" }).click();
      await dialog(page).getByRole("button", { name: "Back" }).click();
      await dialog(page).getByRole("button", { name: "Continue with a wallet" }).waitFor();
    } finally {
      await context.close();
    }
    const bare = await newPage({ wallet: false });
    try {
      await openWalletList(bare.page);
      await dialog(bare.page).getByText("No wallets available").waitFor();
      await shot(bare.page, "wallet-none");
    } finally {
      await bare.context.close();
    }
  });

  it("a wallet that takes too long shows 'Connection timed out', and Try again works", async () => {
    const { context, page, wallet } = await newPage();
    try {
      await openWalletList(page, hostUrl({ connectTimeoutMs: 1500 }));
      const release = wallet?.hold("wallet_requestPermissions");
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page).getByRole("heading", { name: "Connection timed out" }).waitFor();
      await dialog(page).getByText("It looks like you need more time.").waitFor();
      release?.("reject");
      await dialog(page).getByRole("button", { name: "Try again" }).click();
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
    } finally {
      await context.close();
    }
  });

  it("a wallet that cannot use the app's networks is refused, with 'Try again with a different wallet'", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    // The wallet is on a network the app does not use, and refuses to add the app's.
    const { context, page, wallet } = await newPage({
      chains: [
        { id: 424242, rpcUrl: chain.rpcUrl },
        { id: chain.chainId, rpcUrl: chain.rpcUrl, added: false },
      ],
    });
    try {
      await openWalletList(page, hostUrl({ chains: [{ id: chain.chainId, rpcUrl: chain.rpcUrl }] }));
      wallet?.rejectNext("wallet_addEthereumChain", { code: -32603, message: "Unsupported network" });
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page).getByText("The connected wallet does not support this network").waitFor();
      await shot(page, "wallet-wrong-network");
      await dialog(page).getByRole("button", { name: "Try again with a different wallet" }).click();
      await dialog(page).getByRole("heading", { name: "Select your wallet" }).waitFor();
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      await context.close();
    }
  });
});

describe("external wallets: a wallet that cannot switch networks (spec §8 'wallet')", () => {
  it("the app's switch shows 'The connector does not support programmatic chain switching', and the wallet stays on its chain", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const { context, page, wallet } = await newPage({
      unsupportedMethods: ["wallet_switchEthereumChain", "wallet_addEthereumChain"],
    });
    try {
      await openWalletList(page);
      await dialog(page).getByRole("button", { name: WALLET }).click();
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      await page.getByRole("button", { name: `Switch to ${other.chainId}` }).click();
      await expect
        .poll(() => page.getByTestId("wallet-result").textContent())
        .toBe(
          "error SWITCH_CHAIN_NOT_SUPPORTED: The connector does not support programmatic chain switching: The wallet does not support wallet_switchEthereumChain.",
        );
      expect(wallet?.calls.map((c) => c.method)).toContain("wallet_switchEthereumChain");
      expect(wallet?.chainId).toBe(chain.chainId);
      expect(await page.getByTestId("wallet-chain").textContent()).toBe(String(chain.chainId));
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
    } finally {
      await context.close();
    }
  });
});

describe("external wallets: the connector errors of core (spec §8 'wallet')", () => {
  /** Calls a core action with the page's signer and answers the error's code and message (or "ok"). */
  const attempt = (page: Page, action: string, params: unknown) =>
    page.evaluate(
      async ([name, p]) => {
        const fn = (window.lkCore as unknown as Record<string, (s: unknown, p: unknown) => Promise<unknown>>)[
          name as string
        ];
        try {
          await fn?.(window.lkSigner, p);
          return "ok";
        } catch (e) {
          return `${(e as { code?: string }).code}: ${(e as Error).message}`;
        }
      },
      [action, params] as const,
    );

  it("names each connector error", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const { context, page, wallet, address } = await newPage();
    // A second wallet in the same browser, for a failed switch from the first one (spec §4).
    const second = await installInjectedWallet(context, {
      account: privateKeyToAccount(generatePrivateKey()),
      chains: [{ id: chain.chainId, rpcUrl: chain.rpcUrl }],
      info: { name: "Second Test Wallet", rdns: "dev.latchkey.secondwallet" },
    });
    try {
      await page.goto(hostUrl({ siwe: false }));
      await page.getByTestId("wallet-status").waitFor();
      const id = "dev.latchkey.testwallet";
      expect(await attempt(page, "switchExternalWalletChain", { chainId: other.chainId })).toBe(
        "CONNECTOR_NOT_CONNECTED: Connector not connected",
      );
      expect(await attempt(page, "connectExternalWallet", { connectorId: "io.nowhere" })).toBe(
        "PROVIDER_NOT_FOUND: Provider not found: io.nowhere",
      );
      expect(await attempt(page, "connectExternalWallet", { connectorId: id, chainId: 999 })).toBe(
        "CHAIN_NOT_CONFIGURED: Chain not configured",
      );
      expect(await attempt(page, "connectExternalWallet", { connectorId: id })).toBe("ok");
      expect(await attempt(page, "connectExternalWallet", { connectorId: id })).toBe(
        "CONNECTOR_ALREADY_CONNECTED: Connector already connected",
      );
      // Hex call data is a user operation too (spec §5, §8): refused, and nothing reaches the wallet.
      const sentBefore = wallet?.calls.filter((c) => c.method === "eth_sendTransaction").length;
      expect(await attempt(page, "sendUserOperation", { uo: "0xd09de08a" })).toBe(
        "EOA_USER_OPERATION_UNSUPPORTED: Batch and hex user operations cannot be sent from an external wallet: send one call {target, data, value}",
      );
      expect(wallet?.calls.filter((c) => c.method === "eth_sendTransaction").length).toBe(sentBefore);
      // Connecting the second wallet fails (refused in it): the page is back on the first one (spec §4).
      second.rejectNext("wallet_requestPermissions");
      expect(await attempt(page, "connectExternalWallet", { connectorId: "dev.latchkey.secondwallet" })).toBe(
        "USER_REJECTED: User rejected the request.",
      );
      expect(second.calls.map((c) => c.method)).toContain("wallet_requestPermissions");
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-address").textContent()).toBe(address);
      expect(await page.getByTestId("wallet-connector").textContent()).toBe(id);
      expect(await attempt(page, "switchExternalWalletChain", { chainId: 999 })).toBe(
        "CHAIN_NOT_CONFIGURED: Chain not configured",
      );
      // The connection's chain is not the wallet's: a transaction for another chain is refused.
      expect(
        await attempt(page, "sendUserOperation", { uo: { target: DEAD }, chainId: other.chainId }),
      ).toMatch(/^CONNECTOR_CHAIN_MISMATCH: The connector's chain differs from the connection's chain/);
      // The user refuses in the wallet (EIP-1193 4001).
      wallet?.rejectNext("eth_sendTransaction");
      expect(await attempt(page, "sendUserOperation", { uo: { target: DEAD } })).toBe(
        "USER_REJECTED: User rejected the request.",
      );
      wallet?.rejectNext("wallet_switchEthereumChain");
      expect(await attempt(page, "switchExternalWalletChain", { chainId: other.chainId })).toBe(
        "USER_REJECTED: User rejected the request.",
      );
      // A wallet that cannot switch networks at all answers EIP-1193's 4200 "Unsupported method".
      wallet?.rejectNext("wallet_switchEthereumChain", { code: 4200, message: "Unsupported method" });
      expect(await attempt(page, "switchExternalWalletChain", { chainId: other.chainId })).toBe(
        "SWITCH_CHAIN_NOT_SUPPORTED: The connector does not support programmatic chain switching: Unsupported method",
      );
      expect(wallet?.chainId).toBe(chain.chainId);
      // Any other failure of the switch stays a failed connection.
      wallet?.rejectNext("wallet_switchEthereumChain", { code: -32603, message: "Internal error" });
      expect(await attempt(page, "switchExternalWalletChain", { chainId: other.chainId })).toMatch(
        /^WALLET_CONNECTION_FAILED: /,
      );
    } finally {
      await context.close();
    }
    // No chains at all for external wallets.
    const bare = await newPage();
    try {
      await bare.page.goto(hostUrl({ chains: [] }));
      await bare.page.getByTestId("wallet-status").waitFor();
      expect(
        await attempt(bare.page, "connectExternalWallet", { connectorId: "dev.latchkey.testwallet" }),
      ).toBe("NO_CHAINS_ON_CONNECTOR: No chains found on connector");
    } finally {
      await bare.context.close();
    }
  });
});

describe("external wallets: WalletConnect through a local relay", () => {
  let relay: WalletConnectRelay;
  let phone: WalletConnectWallet;
  let phoneAddress: Hex;
  beforeAll(async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    relay = await startWalletConnectRelay();
    const account = privateKeyToAccount(generatePrivateKey());
    phoneAddress = account.address;
    await chain.fund(account.address, 10n ** 18n);
    phone = await startWalletConnectWallet({
      relayUrl: relay.url,
      account,
      chains: [{ id: chain.chainId, rpcUrl: chain.rpcUrl }],
    });
  }, 60_000);
  afterAll(async () => {
    await phone?.close();
    await relay?.close();
  });

  /** A page whose WalletConnect client uses WalletConnect's own test switch (no verify.walletconnect.org). */
  async function wcPage() {
    const { context, page } = await newPage({ wallet: false });
    await context.addInitScript({
      content: "window.process = { env: { IS_VITEST: 'true' } }; window.global ??= window;",
    });
    return { context, page };
  }
  const wcUrl = () => hostUrl({ walletConnect: { projectId: "local-dev", relayUrl: relay.url } });

  /** 'Scans' the QR code: the wallet pairs with the URI the modal shows. */
  async function scan(page: Page) {
    const qr = dialog(page).getByTestId("lk-walletconnect-qr");
    await qr.locator("svg").waitFor();
    const uri = (await qr.getAttribute("data-uri")) as string;
    expect(uri).toMatch(/^wc:[0-9a-f]+@2\?/);
    await phone.pair(uri);
  }

  it("connects by QR code, signs the SIWE message on the phone, and sends a transaction that lands", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    phone.setApprove(true);
    const { context, page } = await wcPage();
    try {
      await openWalletList(page, wcUrl());
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await dialog(page).getByRole("heading", { name: "Connecting to WalletConnect" }).waitFor();
      await dialog(page).getByText("Please follow the instructions in the popup to connect.").waitFor();
      await dialog(page).getByRole("button", { name: "Copy link" }).waitFor();
      await shot(page, "wallet-walletconnect-qr");
      await scan(page);
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-address").textContent()).toBe(phoneAddress);
      expect(await page.getByTestId("wallet-connector").textContent()).toBe("walletConnect");
      expect(await page.getByTestId("wallet-siwe").count()).toBe(1);
      expect(phone.requests.map((r) => r.method)).toContain("personal_sign");
      expect(await page.evaluate(() => window.lkEvents)).toEqual(["eoa_connected"]);

      const before = await chain.publicClient.getBalance({ address: DEAD });
      await page.getByRole("button", { name: "Send transaction" }).click();
      await expect.poll(() => page.getByTestId("wallet-result").textContent()).toMatch(/^0x[0-9a-f]{64}$/);
      const hash = (await page.getByTestId("wallet-result").textContent()) as Hex;
      expect((await chain.publicClient.getTransactionReceipt({ hash })).from.toLowerCase()).toBe(
        phoneAddress.toLowerCase(),
      );
      expect((await chain.publicClient.getBalance({ address: DEAD })) - before).toBe(1000n);

      // After a reload the session is restored from the page's storage, without a new QR code.
      await page.reload();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-connector").textContent()).toBe("walletConnect");

      // The user ends the session on the phone: the page is disconnected at once.
      await phone.disconnect();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      await context.close();
    }
  });

  it("a session asked for other chains than the app's is dropped on load; with the same chains it is restored", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    phone.setApprove(true);
    const walletConnect = { projectId: "local-dev", relayUrl: relay.url };
    // The app asks for one chain first, then also for another one (a new release of the app).
    const oneChain = hostUrl({ walletConnect, chains: [{ id: chain.chainId, rpcUrl: chain.rpcUrl }] });
    const { context, page } = await wcPage();
    try {
      const earlier = new Set(phone.sessions().map((x) => x.topic));
      await openWalletList(page, oneChain);
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await scan(page);
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      const topic = phone.sessions().find((x) => !earlier.has(x.topic))?.topic;
      expect(topic).toMatch(/^[0-9a-f]{64}$/);
      const proposals = phone.proposals.length;

      // Same chains: the session comes back after a reload, no new pairing.
      await page.reload();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(await page.getByTestId("wallet-address").textContent()).toBe(phoneAddress);
      expect(phone.sessions().map((x) => x.topic)).toContain(topic);

      // The app now configures a chain the session never asked for: the session is stale, ended on load
      // (the phone sees it deleted), and the user is disconnected.
      await page.goto(wcUrl());
      await expect.poll(() => phone.sessions().map((x) => x.topic), { timeout: 15_000 }).not.toContain(topic);
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await page.waitForTimeout(500);
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      expect(await page.getByTestId("wallet-address").count()).toBe(0);

      // The user sees the wallet list again, and WalletConnect pairs anew, asking for both chains.
      await page.getByRole("button", { name: "Open sign-in" }).click();
      await dialog(page).getByRole("button", { name: "Continue with a wallet" }).click();
      await dialog(page).getByRole("heading", { name: "Select your wallet" }).waitFor();
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await scan(page);
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("wallet-status").textContent()).toBe("connected");
      expect(phone.proposals).toHaveLength(proposals + 1);
      const asked = phone.proposals.at(-1)?.optionalNamespaces.eip155?.chains;
      expect(asked).toEqual([`eip155:${chain.chainId}`, `eip155:${other.chainId}`]);

      // The phone approved only its own chain and cannot add one: switching to the other is refused.
      await page.getByRole("button", { name: `Switch to ${other.chainId}` }).click();
      await expect
        .poll(() => page.getByTestId("wallet-result").textContent())
        .toBe(
          "error SWITCH_CHAIN_NOT_SUPPORTED: The connector does not support programmatic chain switching",
        );
      expect(await page.getByTestId("wallet-chain").textContent()).toBe(String(chain.chainId));
      await page.getByRole("button", { name: "Disconnect wallet" }).click();
      await expect.poll(() => page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      await context.close();
    }
  });

  it("a phone that approves none of the app's chains: 'The connected wallet does not support this network'", async () => {
    // The app uses only the other chain; the phone approves a session with its own chain only.
    phone.setApprove("own chains");
    const otherOnly = hostUrl({
      walletConnect: { projectId: "local-dev", relayUrl: relay.url },
      chains: [{ id: other.chainId, rpcUrl: other.rpcUrl }],
    });
    const { context, page } = await wcPage();
    try {
      const earlier = new Set(phone.sessions().map((x) => x.topic));
      await openWalletList(page, otherOnly);
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await scan(page);
      await dialog(page).getByText("The connected wallet does not support this network").waitFor();
      expect(phone.proposals.at(-1)?.optionalNamespaces.eip155?.chains).toEqual([`eip155:${other.chainId}`]);
      // The session the phone approved is ended, not kept.
      await expect.poll(() => phone.sessions().filter((x) => !earlier.has(x.topic))).toEqual([]);
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
      await dialog(page).getByRole("button", { name: "Try again with a different wallet" }).click();
      await dialog(page).getByRole("heading", { name: "Select your wallet" }).waitFor();
    } finally {
      phone.setApprove(true);
      await context.close();
    }
  });

  it("a rejection on the phone shows the wallet's error view", async () => {
    const { context, page } = await wcPage();
    try {
      phone.setApprove(false);
      await openWalletList(page, wcUrl());
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await scan(page);
      await dialog(page).getByRole("heading", { name: "Couldn't connect to WalletConnect" }).waitFor();
      await dialog(page).getByText("The wallet's connection failed or was canceled.").waitFor();
      expect(await page.getByTestId("wallet-status").textContent()).toBe("disconnected");
    } finally {
      phone.setApprove(true);
      await context.close();
    }
  });

  it("without a project id, WalletConnect shows the configuration error", async () => {
    const { context, page } = await wcPage();
    try {
      await openWalletList(page, hostUrl({ walletConnect: { projectId: "" } }));
      await dialog(page).getByRole("button", { name: "WalletConnect" }).click();
      await dialog(page).getByRole("heading", { name: "Couldn't connect to WalletConnect" }).waitFor();
      await dialog(page).getByText("The WalletConnect configuration is missing or incorrect.").waitFor();
      await shot(page, "wallet-walletconnect-config");
    } finally {
      await context.close();
    }
  });
});
