import { getAddress, type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, skipPasskeyOffer, startStack, typeOtp, watchPageErrors } from "./helpers/stack";

// A dapp on React + wagmi + RainbowKit in Chromium (e2e/rainbowkit), with Latchkey in RainbowKit's wallet
// list (latchkeyWallet) and one signer shared with <LatchkeyProvider>: no bundler configured, so the account
// is the user's EOA and transactions are plain ones, signed by the service and broadcast to the chain.
let s: Stack;
beforeAll(async () => {
  s = await startStack("rainbowkit", { chain: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const RECIPIENT = getAddress("0x00000000000000000000000000000000c0ffee01");

describe("RainbowKit in the browser", () => {
  it("connects Latchkey from RainbowKit's list, signs a message viem verifies, and sends a plain transaction", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const email = "rainbowkit-page@example.com";
    const context = await s.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors = watchPageErrors(page);
    try {
      await page.goto(`${s.hostOrigin}/?recipient=${RECIPIENT}`);
      await expect.poll(() => page.getByTestId("wagmi-status").textContent()).toBe("disconnected");

      // RainbowKit's ConnectButton, then Latchkey in its list: the connector opens the Latchkey modal.
      await page.getByRole("button", { name: "Connect Wallet" }).click();
      await page.getByRole("button", { name: /Latchkey/ }).click();
      const latchkeyModal = page.getByRole("dialog").filter({ has: page.getByPlaceholder("Email") });
      await latchkeyModal.getByPlaceholder("Email").fill(email);
      // Playwright's clicks below fail if RainbowKit's modal (still open, "Opening Latchkey…") covers it.
      await shot(page, "rainbowkit-00-modals");
      const sent = s.mailCount(email);
      await latchkeyModal.getByRole("button", { name: "Continue", exact: true }).click();
      await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
      await typeOtp(page, await s.otpCode(email, sent));
      await expect.poll(() => page.getByTestId("wagmi-status").textContent()).toBe("connected");
      await skipPasskeyOffer(page);
      await expect.poll(() => page.getByRole("dialog").count()).toBe(0);

      // The connected address is the user's EOA: no bundler, the plain wallet.
      const eoa = getAddress((await page.getByTestId("user-address").textContent()) as string);
      expect(await page.getByTestId("wagmi-address").textContent()).toBe(eoa);
      expect(await page.getByTestId("wagmi-connector").textContent()).toBe("latchkey");
      await shot(page, "rainbowkit-01-connected");

      // wagmi's signMessage, verified by viem in the page for the connected address.
      await page.getByRole("button", { name: "Sign message" }).click();
      await expect.poll(() => page.getByTestId("signature-valid").textContent()).toBe("true");
      const signature = (await page.getByTestId("signature").textContent()) as Hex;
      expect(
        await chain.publicClient.verifyMessage({
          address: eoa,
          message: "Hello from the RainbowKit e2e dapp",
          signature,
        }),
      ).toBe(true);

      // A plain transaction from the EOA (funded here), through wagmi's sendTransaction.
      await chain.fund(eoa, parseEther("1"));
      const before = await chain.publicClient.getBalance({ address: RECIPIENT });
      await page.getByRole("button", { name: "Send 0.01 ETH" }).click();
      await expect
        .poll(() => page.getByTestId("tx-status").textContent(), { timeout: 30_000 })
        .toBe("success");
      expect(await page.getByTestId("error").count()).toBe(0);
      const hash = (await page.getByTestId("tx-hash").textContent()) as Hex;
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect(getAddress(receipt.from)).toBe(eoa);
      expect(await chain.publicClient.getBalance({ address: RECIPIENT })).toBe(before + parseEther("0.01"));
      await shot(page, "rainbowkit-02-sent");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
