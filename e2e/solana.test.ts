import {
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionEncoder,
  pipe,
  type SignatureBytes,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
} from "@solana/kit";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemTransfer } from "../test-support/solana/transfer";
import { type Stack, shot, signUpInDemo, startStack } from "./helpers/stack";

// The demo with the Solana node of `npm start` (litesvm) and the service's fee payer: a new user, with no
// SOL, sends a sponsored transfer; with SOL from the dev faucet, pays a transfer's fee or lets the app pay;
// and the embedded wallet is a wallet-standard wallet the page's Solana tooling discovers and uses.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo", { solana: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const DEMO_RECIPIENT = "DemoRecipient1111111111111111111111111111111";
const FEE = 5000n; // lamports per signature
const solana = () => s.solana as NonNullable<Stack["solana"]>;
const balance = (account: string) => solana().node.svm.getBalance(address(account)) ?? 0n;

/** The signature the card shows, or null. */
async function shownSignature(page: Page): Promise<string | null> {
  const cell = page.getByTestId("solana-signature");
  return (await cell.count()) ? await cell.textContent() : null;
}

/** Presses `button` and answers the signature the card then shows (a new one, confirmed). */
async function send(page: Page, button: "Send" | "Send sponsored", amount: string): Promise<string> {
  const previous = await shownSignature(page);
  await page.getByLabel("Amount (SOL)").fill(amount);
  await page.getByTestId("solana").getByRole("button", { name: button, exact: true }).click();
  let signature: string | null = null;
  await expect
    .poll(
      async () => {
        signature = await shownSignature(page);
        return signature !== null && signature !== previous;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  expect(await page.getByTestId("solana-error").count()).toBe(0);
  return signature as unknown as string;
}

/** The node's status of `signature`: confirmed without error. */
async function expectConfirmed(signature: string) {
  const rpc = createSolanaRpc(solana().node.url);
  const { value } = await rpc.getSignatureStatuses([signature as never]).send();
  expect(value[0]?.err).toBeNull();
  expect(value[0]?.confirmationStatus).toBe("finalized");
}

describe("demo: Solana", () => {
  it("a new user sends sponsored and paid transfers, and dapps use the wallet-standard wallet", async () => {
    const { feePayer, node } = solana();
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 1400 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    page.on("console", (m) => m.type() === "error" && console.error("console", m.text()));
    try {
      await page.goto(`${s.hostOrigin}/`);
      await page.waitForFunction(
        () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
      );
      await signUpInDemo(s, page, "solana-demo@example.com");

      const owner = (await page.getByTestId("solana-card-address").textContent()) as string;
      expect(owner).toBe(await page.getByTestId("solana-address").textContent());
      await expect.poll(() => page.getByTestId("solana-balance").textContent()).toBe("0 SOL");
      expect(balance(owner)).toBe(0n);
      expect(await page.getByLabel("Recipient").inputValue()).toBe(DEMO_RECIPIENT);
      await shot(page, "40-solana");

      // An account without SOL: a sponsored transfer of 0 SOL goes through, the app's fee payer pays the
      // fee (two signatures: the user's and its own), and the user still holds nothing.
      let feePayerBefore = balance(feePayer);
      const first = await send(page, "Send sponsored", "0");
      await expectConfirmed(first);
      expect(balance(owner)).toBe(0n);
      expect(feePayerBefore - balance(feePayer)).toBe(2n * FEE);
      expect(await page.getByTestId("solana-balance-change").textContent()).toBe(
        "Your balance: 0 SOL → 0 SOL (no change)",
      );
      expect(await page.getByTestId("solana-fee-payer-change").textContent()).toMatch(
        /^Fee payer \w{4}…\w{4}: [\d.]+ SOL → [\d.]+ SOL \(−0\.00001 SOL\)$/,
      );
      await shot(page, "41-solana-sponsored-empty");

      // Paying its own fee is refused with nothing to pay it from.
      await page.getByTestId("solana").getByRole("button", { name: "Send", exact: true }).click();
      await page.getByTestId("solana-error").waitFor();
      expect(await page.getByTestId("solana-error").textContent()).toMatch(/too little SOL/);
      expect(balance(owner)).toBe(0n);

      // The dev faucet.
      await page.getByRole("button", { name: "Request 1 SOL" }).click();
      await expect.poll(() => page.getByTestId("solana-balance").textContent()).toBe("1 SOL");
      expect(balance(owner)).toBe(1_000_000_000n);

      // The user pays: the amount and one signature's fee.
      const recipientBefore = balance(DEMO_RECIPIENT);
      const paid = await send(page, "Send", "0.001");
      await expectConfirmed(paid);
      expect(balance(owner)).toBe(1_000_000_000n - 1_000_000n - FEE);
      expect(balance(DEMO_RECIPIENT)).toBe(recipientBefore + 1_000_000n);
      expect(await page.getByTestId("solana-balance-change").textContent()).toBe(
        "Your balance: 1 SOL → 0.998995 SOL (−0.001005 SOL)",
      );
      expect(await page.getByTestId("solana-fee-payer-change").count()).toBe(0);
      await expect.poll(() => page.getByTestId("solana-balance").textContent()).toBe("0.998995 SOL");

      // Sponsored: the user pays exactly the amount.
      feePayerBefore = balance(feePayer);
      const sponsored = await send(page, "Send sponsored", "0.001");
      await expectConfirmed(sponsored);
      expect(balance(owner)).toBe(998_995_000n - 1_000_000n);
      expect(balance(DEMO_RECIPIENT)).toBe(recipientBefore + 2_000_000n);
      expect(feePayerBefore - balance(feePayer)).toBe(2n * FEE);
      expect(await page.getByTestId("solana-balance-change").textContent()).toBe(
        "Your balance: 0.998995 SOL → 0.997995 SOL (−0.001 SOL)",
      );
      await shot(page, "42-solana-sponsored");

      // The page's Solana tooling finds the embedded wallet through the wallet standard.
      const discovered = await page.evaluate(() => {
        type Wallet = { name: string; chains: string[]; features: Record<string, unknown> };
        const wallets: Wallet[] = [];
        window.dispatchEvent(
          new CustomEvent("wallet-standard:app-ready", {
            detail: {
              register: (...added: Wallet[]) => {
                wallets.push(...added);
                return () => {};
              },
            },
          }),
        );
        const wallet = wallets.find((w) => w.name.includes("Latchkey"));
        (window as unknown as { latchkeyWallet?: Wallet }).latchkeyWallet = wallet;
        return wallet && { name: wallet.name, chains: wallet.chains, features: Object.keys(wallet.features) };
      });
      expect(discovered?.chains).toContain("solana:localnet");
      expect(discovered?.features).toEqual(
        expect.arrayContaining([
          "standard:connect",
          "standard:disconnect",
          "standard:events",
          "solana:signMessage",
          "solana:signTransaction",
          "solana:signAndSendTransaction",
        ]),
      );

      // Connect, and sign a message: an ed25519 signature by the user's address.
      const message = "Hello from a Solana dapp";
      const signed = await page.evaluate(async (text) => {
        // biome-ignore lint/suspicious/noExplicitAny: the wallet-standard objects, untyped in the page
        const wallet = (window as any).latchkeyWallet;
        const { accounts } = await wallet.features["standard:connect"].connect();
        const [result] = await wallet.features["solana:signMessage"].signMessage({
          account: accounts[0],
          message: new TextEncoder().encode(text),
        });
        return {
          accounts: accounts.map((a: { address: string }) => a.address),
          signedMessage: new TextDecoder().decode(result.signedMessage),
          signature: Array.from(result.signature as Uint8Array),
        };
      }, message);
      expect(signed.accounts).toEqual([owner]);
      expect(signed.signedMessage).toBe(message);
      expect(
        await verifySignature(
          await getPublicKeyFromAddress(address(owner)),
          new Uint8Array(signed.signature) as SignatureBytes,
          new TextEncoder().encode(message),
        ),
      ).toBe(true);

      // signAndSendTransaction: a transaction the dapp built (the user pays its fee), sent to the node.
      const rpc = createSolanaRpc(node.url);
      const { value: blockhash } = await rpc.getLatestBlockhash().send();
      const unsigned = getTransactionEncoder().encode(
        compileTransaction(
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayer(address(owner), m),
            (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
            (m) =>
              appendTransactionMessageInstruction(
                systemTransfer(address(owner), address(DEMO_RECIPIENT), 2_000_000n),
                m,
              ),
          ),
        ),
      );
      const userBefore = balance(owner);
      const recipientBeforeDapp = balance(DEMO_RECIPIENT);
      const sent = await page.evaluate(async (bytes) => {
        // biome-ignore lint/suspicious/noExplicitAny: the wallet-standard objects, untyped in the page
        const wallet = (window as any).latchkeyWallet;
        const [account] = wallet.accounts;
        const [result] = await wallet.features["solana:signAndSendTransaction"].signAndSendTransaction({
          account,
          chain: "solana:localnet",
          transaction: new Uint8Array(bytes),
        });
        return Array.from(result.signature as Uint8Array);
      }, Array.from(unsigned));
      const dappSignature = getBase58Decoder().decode(new Uint8Array(sent));
      await expectConfirmed(dappSignature);
      expect(balance(DEMO_RECIPIENT)).toBe(recipientBeforeDapp + 2_000_000n);
      expect(balance(owner)).toBe(userBefore - 2_000_000n - FEE);

      // Signed out, the wallet is gone: an app that starts now finds no Latchkey wallet.
      await page.locator(".nav").getByRole("button", { name: "Log out" }).click();
      await page.locator(".nav").getByRole("button", { name: "Sign in" }).waitFor();
      const after = await page.evaluate(() => {
        const names: string[] = [];
        window.dispatchEvent(
          new CustomEvent("wallet-standard:app-ready", {
            detail: {
              register: (...added: { name: string }[]) => {
                names.push(...added.map((w) => w.name));
                return () => {};
              },
            },
          }),
        );
        return names;
      });
      expect(after.filter((n) => n.includes("Latchkey"))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
