import { getAddress, type Hex, hashMessage, parseAbi } from "viem";
import { parseSiweMessage, verifySiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterAbi, SIMPLE_7702_ACCOUNT_08 } from "../test-support/chain";
import { type Stack, shot, skipPasskeyOffer, startStack, typeOtp, watchPageErrors } from "./helpers/stack";

// A dapp on @wagmi/core in Chromium (e2e/wagmi): wagmi's connect() opens the Latchkey modal, a new user signs
// in by email code, and the dapp signs an EIP-4361 message and sends a sponsored batch through the
// latchkey() connector, with the real service, chain, bundler and paymaster.
let s: Stack;
beforeAll(async () => {
  s = await startStack("wagmi", { chain: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const chainOf = () => s.chain as NonNullable<Stack["chain"]>;
const counter = () =>
  chainOf().publicClient.readContract({
    address: chainOf().counter,
    abi: counterAbi,
    functionName: "number",
  });

describe("wagmi in the browser", () => {
  it("connects the embedded wallet, signs a SIWE message viem verifies, and sends a sponsored batch from a 0-ETH account", async () => {
    const chain = chainOf();
    const email = "wagmi-page@example.com";
    const context = await s.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors = watchPageErrors(page);
    try {
      await page.goto(`${s.hostOrigin}/`);
      await expect.poll(() => page.getByTestId("wagmi-status").textContent()).toBe("disconnected");

      // wagmi's connect() while signed out: the connector's requestAccounts opens the modal.
      await page.getByRole("button", { name: "Connect wallet" }).click();
      await page.getByPlaceholder("Email").fill(email);
      const sent = s.mailCount(email);
      await page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true }).click();
      await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
      await typeOtp(page, await s.otpCode(email, sent));
      await expect.poll(() => page.getByTestId("wagmi-status").textContent()).toBe("connected");
      await skipPasskeyOffer(page);
      await page.getByRole("dialog").waitFor({ state: "detached" });

      // The connected address is the user's EOA (a 7702 account), not delegated yet, holding no ETH.
      const eoa = getAddress((await page.getByTestId("user-address").textContent()) as string);
      expect(await page.getByTestId("wagmi-address").textContent()).toBe(eoa);
      expect(await page.getByTestId("wagmi-chain").textContent()).toBe(String(chain.chainId));
      expect(await page.getByTestId("wagmi-connector").textContent()).toBe("latchkey");
      expect(await chain.publicClient.getCode({ address: eoa })).toBeUndefined();
      expect(await chain.publicClient.getBalance({ address: eoa })).toBe(0n);

      // SIWE: signed with wagmi's signMessage, verified by viem in the page and here against the chain.
      await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
      await expect.poll(() => page.getByTestId("siwe-valid").textContent()).toBe("true");
      const message = (await page.getByTestId("siwe-message").textContent()) as string;
      const signature = (await page.getByTestId("siwe-signature").textContent()) as Hex;
      const host = new URL(s.hostOrigin).host;
      expect(parseSiweMessage(message)).toMatchObject({
        address: eoa,
        chainId: chain.chainId,
        domain: host,
        uri: s.hostOrigin,
        version: "1",
      });
      expect(await chain.publicClient.verifyMessage({ address: eoa, message, signature })).toBe(true);
      expect(
        await verifySiweMessage(chain.publicClient, { message, signature, address: eoa, domain: host }),
      ).toBe(true);
      await shot(page, "wagmi-01-siwe");

      // Without the paymasterService capability nobody pays (the signer's chain has no policy): refused.
      const before = await counter();
      await page.getByRole("button", { name: "Send batch (unsponsored)" }).click();
      await expect
        .poll(() => page.getByTestId("error-code").textContent(), { timeout: 30_000 })
        .toBe("INSUFFICIENT_FUNDS");
      expect(await counter()).toBe(before);

      // A sponsored batch of two increments (wallet_sendCalls with paymasterService), from 0 ETH.
      await page.getByRole("button", { name: "Send batch (sponsored)" }).click();
      await expect
        .poll(() => page.getByTestId("batch-status").textContent(), { timeout: 60_000 })
        .toBe("success");
      expect(await page.getByTestId("error").count()).toBe(0);
      const txHash = (await page.getByTestId("batch-transaction").textContent()) as Hex;
      expect((await chain.publicClient.getTransactionReceipt({ hash: txHash })).status).toBe("success");
      expect(await counter()).toBe(before + 2n);
      // The first operation delegated the EOA to Simple7702Account, and the paymaster paid for it.
      expect((await chain.publicClient.getCode({ address: eoa }))?.toLowerCase()).toBe(
        `0xef0100${SIMPLE_7702_ACCOUNT_08.slice(2)}`.toLowerCase(),
      );
      expect(await chain.publicClient.getBalance({ address: eoa })).toBe(0n);
      // The SIWE signature still verifies now that the address has code: Simple7702Account's ERC-1271.
      expect(await chain.publicClient.verifyMessage({ address: eoa, message, signature })).toBe(true);
      const isValidSignature = await chain.publicClient.readContract({
        address: eoa,
        abi: parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"]),
        functionName: "isValidSignature",
        args: [hashMessage(message), signature],
      });
      expect(isValidSignature).toBe("0x1626ba7e");
      await shot(page, "wagmi-02-batch");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
