import type { FrameLocator, Page } from "playwright-core";
import { type Hex, recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAccounts, entropyToMnemonic } from "../packages/server/src/crypto/wallet";
import { hostPageContents, instrumentHostPage } from "./helpers/hostPage";
import { signUpSplit } from "./helpers/splitSignUp";
import { type Stack, shot, startStack } from "./helpers/stack";

// Importing a wallet into a split-custody app (docs/split-custody.md §5, Import), in Chromium against the
// real service: on the demo's account page the user types a phrase into the import frame, which splits it
// there, keeps the user's share in the auth frame's storage (same origin) and sends the service only its
// share. The imported address then signs (the auth frame picks that wallet's share), and export shows the
// same words, put together in the export frame. The phrase never reaches the host page.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo", { hostName: "localhost", devCustody: "split" });
}, 180_000);
afterAll(async () => {
  await s?.close();
});

async function openImport(page: Page): Promise<FrameLocator> {
  const panel = page.getByTestId("import");
  await panel.getByRole("heading", { name: "Import a wallet" }).waitFor();
  await panel.getByRole("radio", { name: "Recovery phrase (12 or 24 words)" }).check();
  await panel.getByRole("button", { name: "Continue" }).click();
  await panel.getByRole("button", { name: "I understand, continue" }).click();
  const frame = page.frameLocator("#latchkey-import-iframe");
  await frame.getByTestId("import-secret").waitFor();
  return frame;
}

describe("import into a split-custody app", () => {
  it("imports a phrase split in the frame; the imported address signs; export shows the same words", async () => {
    const context = await s.browser.newContext({ viewport: { width: 1100, height: 1600 } });
    await context.addInitScript(instrumentHostPage);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    await page.goto(`${s.hostOrigin}/`);
    await page.waitForFunction(
      () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
    );
    await signUpSplit(s, page, "split-import@example.com");
    const before = (await page.getByTestId("evm-address").getAttribute("title")) as string;

    const phrase = entropyToMnemonic(crypto.getRandomValues(new Uint8Array(16)));
    const [evm, sol] = deriveAccounts(phrase);
    const frame = await openImport(page);
    await frame.getByTestId("import-secret").pressSequentially(phrase);
    const panel = page.getByTestId("import");
    await panel.getByRole("button", { name: "Import", exact: true }).click();
    await panel.getByText("Wallet imported").waitFor();
    await expect.poll(() => page.getByTestId("evm-address").getAttribute("title")).toBe(evm?.address);
    await expect.poll(() => page.getByTestId("solana-address").getAttribute("title")).toBe(sol?.address);
    expect(evm?.address).not.toBe(before);
    await shot(page, "74-custody-import-done");

    // The imported address signs: the auth frame attaches the imported wallet's share.
    await page.getByRole("button", { name: "Sign message" }).click();
    // The demo asks before every signature (`ui.confirmTransactions`).
    await page.getByRole("dialog").getByRole("button", { name: "Confirm" }).click();
    await page.getByTestId("message-signature").waitFor();
    const signature = (await page.getByTestId("message-signature").textContent()) as Hex;
    expect(await recoverMessageAddress({ message: "Hello from Latchkey!", signature })).toBe(evm?.address);
    await expect.poll(() => page.getByTestId("verdict").textContent()).toContain("Signature verified");

    // Export: the service's share and this device's, put together in the export frame: the same words.
    await page.getByTestId("export").getByRole("button", { name: "Show recovery phrase" }).click();
    const exported = page.frameLocator("#latchkey-export-iframe").getByTestId("export-words");
    await exported.waitFor();
    expect((await exported.getByTestId("export-word").allTextContents()).join(" ")).toBe(phrase);
    await page.getByTestId("export").getByRole("button", { name: "Hide" }).click();

    // Nothing of the phrase reached the host page.
    const seen = await hostPageContents(page, "latchkey-import-iframe");
    expect(seen.includes(phrase)).toBe(false);
    await context.close();
  }, 150_000);
});
