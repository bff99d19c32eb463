import { address, createSolanaRpc } from "@solana/kit";
import type { Page } from "playwright-core";
import { type Hex, isHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterAbi } from "../test-support/chain";
import { signUpSplit } from "./helpers/splitSignUp";
import { type Stack, startStack } from "./helpers/stack";

// Split custody on the chains (docs/split-custody.md §2, §4), in Chromium against the real service: the
// demo in a split app, with the dev chain (EntryPoint v0.8, bundler, the service's paymaster) and the
// Solana node (litesvm, the service's fee payer). A new user's sponsored Solana transfer and sponsored
// user operation are signed by the service with the user share the auth frame attaches to each signing
// request (sealed for that request's body); the node and the EntryPoint accept the signatures.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo", { chain: true, solana: true, devCustody: "split" });
}, 180_000);
afterAll(async () => {
  await s?.close();
});

/** A page of the demo whose signing requests (those that carry a user share) are recorded by path. */
async function openDemo(): Promise<{ page: Page; shareBearing: string[]; close(): Promise<void> }> {
  const context = await s.browser.newContext({ viewport: { width: 1200, height: 1400 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  const shareBearing: string[] = [];
  page.on("request", (r) => {
    const body = r.method() === "POST" ? (r.postData() ?? "") : "";
    const share = r.headers()["x-user-share"] ?? (body.includes('"userShare":"') ? "in body" : undefined);
    if (share) shareBearing.push(new URL(r.url()).pathname);
  });
  await page.goto(`${s.hostOrigin}/`);
  await page.waitForFunction(() => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"));
  return { page, shareBearing, close: () => context.close() };
}

/** The user's wallet as the service stores it: split, no phrase, no private key. */
async function expectSplitWallet(email: string): Promise<void> {
  const db = s.service.ctx.db;
  const user = await db
    .selectFrom("users")
    .select("org_id")
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
  const wallets = await db
    .selectFrom("wallets")
    .select(["id", "custody", "sealed_mnemonic"])
    .where("org_id", "=", user.org_id)
    .execute();
  expect(wallets.map((w) => [w.custody, w.sealed_mnemonic])).toEqual([["split", ""]]);
  const keys = await db
    .selectFrom("wallet_accounts")
    .select("sealed_private_key")
    .where("wallet_id", "=", wallets[0]?.id ?? "")
    .execute();
  expect(keys.map((k) => k.sealed_private_key)).toEqual(["", ""]);
}

describe("split custody on the chains, in the demo", () => {
  it("Solana: a sponsored transfer signed with the frame's share is confirmed by the node", async () => {
    const solana = s.solana as NonNullable<Stack["solana"]>;
    const { page, shareBearing, close } = await openDemo();
    try {
      const email = "split-solana@example.com";
      await signUpSplit(s, page, email);
      await expectSplitWallet(email);
      const owner = (await page.getByTestId("solana-card-address").textContent()) as string;
      expect(owner).toBe(await page.getByTestId("solana-address").textContent());
      const balance = (a: string) => solana.node.svm.getBalance(address(a)) ?? 0n;
      const feePayerBefore = balance(solana.feePayer);

      shareBearing.length = 0;
      await page.getByLabel("Amount (SOL)").fill("0");
      await page.getByTestId("solana").getByRole("button", { name: "Send sponsored", exact: true }).click();
      const cell = page.getByTestId("solana-signature");
      await cell.waitFor({ timeout: 30_000 });
      expect(await page.getByTestId("solana-error").count()).toBe(0);
      const signature = (await cell.textContent()) as string;
      // The node checked both signatures (the user's, made with the frame's share, and the fee payer's).
      const rpc = createSolanaRpc(solana.node.url);
      const { value } = await rpc.getSignatureStatuses([signature as never]).send();
      expect(value[0]?.err).toBeNull();
      expect(value[0]?.confirmationStatus).toBe("finalized");
      expect(feePayerBefore - balance(solana.feePayer)).toBe(10_000n);
      expect(balance(owner)).toBe(0n);
      // The signature came from a request that carried the user's share.
      expect(shareBearing.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it("EVM: a sponsored user operation signed with the frame's share is accepted by the EntryPoint", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const counter = () =>
      chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });
    const { page, shareBearing, close } = await openDemo();
    try {
      const email = "split-user-operation@example.com";
      await signUpSplit(s, page, email);
      await expectSplitWallet(email);
      const addressCell = page.getByTestId("smart-account-address");
      await expect.poll(() => addressCell.textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const account = (await addressCell.textContent()) as Hex;
      const before = await counter();

      shareBearing.length = 0;
      await page.getByRole("button", { name: "Increment (sponsored)" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
      await dialog.getByRole("button", { name: "Confirm" }).click();
      await page.getByTestId("user-operation-result").waitFor({ timeout: 60_000 });
      expect(await page.getByTestId("user-operation-error").count()).toBe(0);
      const txHash = (await page.getByTestId("transaction-hash").textContent()) as Hex;
      expect(isHex(txHash) && txHash.length === 66).toBe(true);
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
      expect(receipt.status).toBe("success");
      expect(await counter()).toBe(before + 1n);
      // The EIP-7702 delegation (signed with the share too) took: the account is Simple7702Account now.
      expect((await chain.publicClient.getCode({ address: account }))?.toLowerCase()).toBe(
        "0xef0100e6cae83bde06e4c305530e199d7217f42808555b",
      );
      // Sponsored: the account never held ETH.
      expect(await chain.publicClient.getBalance({ address: account })).toBe(0n);
      expect(shareBearing.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});
