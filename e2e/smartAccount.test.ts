import { getAddress, type Hex, isHex, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterAbi } from "../test-support/chain";
import { installInjectedWallet } from "../test-support/wallets";
import { type Stack, shot, signUpInDemo, startStack } from "./helpers/stack";

// The demo with the dev chain of `npm start` (hardhat + EntryPoint v0.8 + alto + the service's paymaster):
// a new user, with no ETH, sends sponsored user operations that change a contract's state.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo", { chain: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const counter = () => {
  const chain = s.chain as NonNullable<Stack["chain"]>;
  return chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });
};

describe("demo: smart account", () => {
  it("a new user sees their smart account and sends a sponsored operation and a batch, paying nothing", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    page.on("console", (m) => m.type() === "error" && console.error("console", m.text()));
    await page.goto(`${s.hostOrigin}/`);
    await page.waitForFunction(
      () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
    );
    await signUpInDemo(s, page, "smart-demo@example.com");

    const addressCell = page.getByTestId("smart-account-address");
    await expect.poll(() => addressCell.textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const address = (await addressCell.textContent()) as Hex;
    // A 7702 account, the default: the user's own address, not delegated yet.
    await expect
      .poll(() => page.getByTestId("smart-account-kind").textContent())
      .toBe("EIP-7702 (Simple7702Account)");
    expect(await chain.publicClient.getCode({ address })).toBeUndefined(); // not delegated yet
    await expect.poll(() => page.getByTestId("smart-account-balance").textContent()).toBe("0 ETH");
    const before = await counter();
    await expect.poll(() => page.getByTestId("counter-value").textContent()).toBe(before.toString());
    await shot(page, "30-smart-account");

    // The page's dapp tooling sees the embedded wallet: EIP-6963 announces it, and its EIP-1193 accounts are
    // the smart account.
    const announced = await page.evaluate(async () => {
      const detail = await new Promise<{
        info: { name: string; rdns: string };
        provider: { request(a: { method: string }): Promise<unknown> };
      }>((resolve) => {
        window.addEventListener("eip6963:announceProvider", (e) => resolve((e as CustomEvent).detail), {
          once: true,
        });
        window.dispatchEvent(new Event("eip6963:requestProvider"));
      });
      return {
        name: detail.info.name,
        rdns: detail.info.rdns,
        accounts: await detail.provider.request({ method: "eth_accounts" }),
        chainId: await detail.provider.request({ method: "eth_chainId" }),
      };
    });
    expect(announced).toEqual({
      name: "Latchkey",
      rdns: "dev.latchkey",
      accounts: [address],
      chainId: `0x${chain.chainId.toString(16)}`,
    });

    // The demo asks before every signature (`ui.confirmTransactions`): the operation's calls, decoded.
    await page.getByRole("button", { name: "Increment (sponsored)" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await dialog.getByText(`Smart account operation on chain ${chain.chainId}`).waitFor();
    expect(await dialog.locator(".lk-confirm-lines li").allTextContents()).toEqual([
      `A call to ${getAddress(chain.counter).slice(0, 6)}…${getAddress(chain.counter).slice(-4)} (function 0xd09de08a)`,
    ]);
    await shot(page, "30-confirm-user-operation");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await page.getByTestId("user-operation-result").waitFor();
    const txHash = (await page.getByTestId("transaction-hash").textContent()) as Hex;
    expect(isHex(txHash) && txHash.length === 66).toBe(true);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    expect(await counter()).toBe(before + 1n);
    await expect.poll(() => page.getByTestId("counter-value").textContent()).toBe((before + 1n).toString());
    // The first operation delegated the address to Simple7702Account (0xef0100 ‖ its address).
    expect((await chain.publicClient.getCode({ address }))?.toLowerCase()).toBe(
      "0xef0100e6cae83bde06e4c305530e199d7217f42808555b",
    );
    await shot(page, "31-sponsored-operation");

    await page.getByRole("button", { name: "Batch: +1 and +10" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await dialog.getByRole("button", { name: "Confirm" }).click();
    // Until the bundler includes it: seconds on a busy machine, past expect.poll's 1 s default.
    await expect
      .poll(() => page.getByTestId("counter-value").textContent(), { timeout: 30_000 })
      .toBe((before + 12n).toString());
    expect(await counter()).toBe(before + 12n);
    // Sponsored: the account never held ETH, and still has none.
    expect(await chain.publicClient.getBalance({ address })).toBe(0n);
    await expect.poll(() => page.getByTestId("smart-account-balance").textContent()).toBe("0 ETH");
    expect(await page.getByTestId("user-operation-error").count()).toBe(0);
    await shot(page, "32-sponsored-batch");

    // A transaction from the embedded wallet, once it holds ETH: the confirmation step shows what the
    // service's simulation on the chain says it costs, before anything is signed (then Cancel).
    await chain.fund(address, parseEther("1"));
    const policyCard = page.getByTestId("policy-card");
    await policyCard.scrollIntoViewIfNeeded();
    await policyCard.getByRole("button", { name: "Sign 0.01 ETH to a friend" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    const changes = dialog.getByRole("list", { name: "Balance changes" }).getByRole("listitem");
    await expect.poll(() => changes.allTextContents()).toEqual([expect.stringMatching(/^-0\.01\d* ETH$/)]);
    await shot(page, "33-confirm-balance-changes");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    await context.close();
  });
});

describe("demo: external wallet", () => {
  it("a person signs in with a browser wallet, sees the address and network, and sends a transaction", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.fund(account.address, 10n ** 18n);
    await installInjectedWallet(context, {
      account,
      chains: [{ id: chain.chainId, rpcUrl: chain.rpcUrl }],
      info: { name: "Demo Wallet", rdns: "dev.latchkey.demowallet" },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    try {
      await page.goto(`${s.hostOrigin}/`);
      await page.waitForFunction(
        () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
      );
      await page.locator(".nav").getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Continue with a wallet" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Demo Wallet" }).click();
      await page.getByRole("dialog").waitFor({ state: "detached" });
      await expect.poll(() => page.getByTestId("eoa-address").textContent()).toBe(account.address);
      expect(await page.getByTestId("eoa-chain").textContent()).toBe("Local chain 31337");
      await page.getByTestId("eoa-siwe").waitFor();
      await shot(page, "demo-external-wallet");

      await page.getByRole("button", { name: "Send transaction" }).click();
      const hash = (await page.getByTestId("eoa-tx").textContent({ timeout: 20_000 })) as Hex;
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(account.address.toLowerCase());

      await page.getByRole("button", { name: "Disconnect" }).click();
      await page.locator(".nav").getByRole("button", { name: "Sign in" }).waitFor();
    } finally {
      await context.close();
    }
  });
});
