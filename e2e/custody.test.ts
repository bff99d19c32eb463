import type { BrowserContext, Page } from "playwright-core";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addVirtualAuthenticator,
  type VirtualAuthenticator,
} from "../packages/core/test/browser/virtualAuthenticator";
import { type Stack, shot, signInOnHost, signOnHostAs, startStack } from "./helpers/stack";

// Split custody in the modal (docs/split-custody.md), in Chromium against the real service: the dev app
// keeps wallets split, so the wallet is made in the auth frame at sign-up and every signature needs the
// frame's share. The modal then offers to protect it (a passkey's PRF, or a recovery code shown once),
// and on a device without the share it asks for the passkey or the code. The app and the service are on
// http://localhost:PORT (the dev app's relying party is `localhost`).
let s: Stack;
const contexts: BrowserContext[] = [];
beforeAll(async () => {
  s = await startStack("host", { hostName: "localhost", devCustody: "split" });
}, 120_000);
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await s?.close();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  authenticator: VirtualAuthenticator;
}

/** A fresh browser context (a new device) with a platform authenticator that evaluates WebAuthn's PRF. */
async function openTab(): Promise<Tab> {
  const context = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  const authenticator = await addVirtualAuthenticator(context, page, [], { hasPrf: true });
  await page.goto(`${s.hostOrigin}/`);
  await status(page).filter({ hasNotText: "INITIALIZING" }).waitFor();
  return { context, page, authenticator };
}

const dialog = (page: Page) => page.getByRole("dialog");
const status = (page: Page) => page.getByTestId("status");

const addressOf = async (page: Page) => (await page.getByTestId("address").textContent()) as string;

/** The recovery phrase the export frame shows (the host page never holds it). */
async function exportedPhrase(page: Page): Promise<string> {
  await page.evaluate(async () => {
    const signer = (window as unknown as { lkSigner: { exportWallet(p: object): Promise<unknown> } })
      .lkSigner;
    await signer.exportWallet({ iframeContainer: document.body });
  });
  const frame = page.frameLocator("#latchkey-export-iframe");
  await frame.getByRole("heading", { name: "Your recovery phrase" }).waitFor();
  const words = await frame.getByTestId("export-word").allTextContents();
  expect(words).toHaveLength(12);
  await page.evaluate(() => document.getElementById("latchkey-export-iframe")?.remove());
  return words.join(" ");
}

describe("split custody in the modal", () => {
  const passkeyUser = "split-passkey@example.com";
  const codeUser = "split-code@example.com";
  let passkeyTab: Tab;
  let passkeyAddress: string;
  let codeAddress: string;
  let code: string;
  let phrase: string;

  it("signs up, protects the wallet with a passkey (PRF), signs, and signs again after a reload", async () => {
    passkeyTab = await openTab();
    const { page, authenticator } = passkeyTab;
    await signInOnHost(s, page, passkeyUser);
    await dialog(page).getByRole("heading", { name: "Protect your wallet" }).waitFor();
    await shot(page, "70-custody-protect");
    await dialog(page).getByRole("button", { name: "Protect with a passkey" }).click();
    await dialog(page).waitFor({ state: "detached" });
    expect(await status(page).textContent()).toBe("CONNECTED");
    expect((await authenticator.credentials()).length).toBe(1);
    passkeyAddress = await addressOf(page);
    await signOnHostAs(page, passkeyAddress);

    await page.reload();
    await status(page).filter({ hasText: "CONNECTED" }).waitFor();
    expect(await addressOf(page)).toBe(passkeyAddress);
    await signOnHostAs(page, passkeyAddress);
  });

  it("on a device without the wallet's part, restores it with the passkey and signs as the same address", async () => {
    // The virtual authenticator cannot hand its PRF secret to another context (CDP's credentials carry
    // none), so this new device is the same tab with everything of the app and the service wiped: the
    // passkey stays with its authenticator, as a synced passkey does.
    const { page, context } = passkeyTab;
    await page.getByRole("button", { name: "Log out" }).click();
    await status(page).filter({ hasText: "DISCONNECTED" }).waitFor();
    const cdp = await context.newCDPSession(page);
    for (const origin of [s.serviceUrl, s.hostOrigin])
      await cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" });
    await page.reload();
    await status(page).filter({ hasText: "DISCONNECTED" }).waitFor();

    await signInOnHost(s, page, passkeyUser);
    await dialog(page).getByRole("heading", { name: "Restore your wallet" }).waitFor();
    await shot(page, "71-custody-restore-passkey");
    await dialog(page).getByRole("button", { name: "Use my passkey" }).click();
    await dialog(page).waitFor({ state: "detached" });
    expect(await addressOf(page)).toBe(passkeyAddress);
    await signOnHostAs(page, passkeyAddress);
  });

  it("signs up, is told what losing the device means, then saves a recovery code shown once", async () => {
    const { page } = await openTab();
    await signInOnHost(s, page, codeUser);
    await dialog(page).getByRole("heading", { name: "Protect your wallet" }).waitFor();
    await dialog(page).getByRole("button", { name: "Not now" }).click();
    await dialog(page).getByRole("heading", { name: "Your wallet is on this device only" }).waitFor();
    await dialog(page)
      .getByText(/losing this device or clearing this browser's data means losing the wallet/)
      .waitFor();
    await shot(page, "72-custody-risk");
    await dialog(page).getByRole("button", { name: "Protect my wallet" }).click();
    await dialog(page).getByRole("button", { name: "Get a recovery code" }).click();
    await dialog(page).getByRole("heading", { name: "Save your recovery code" }).waitFor();
    code = (await dialog(page).getByTestId("lk-recovery-code").textContent()) as string;
    expect(code).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){7}[0-9A-HJKMNP-TV-Z]{4}$/);
    await shot(page, "73-custody-code");
    const cont = dialog(page).getByRole("button", { name: "Continue" });
    expect(await cont.isDisabled()).toBe(true);
    await dialog(page).getByLabel("I saved my recovery code").check();
    await cont.click();
    await dialog(page).waitFor({ state: "detached" });
    codeAddress = await addressOf(page);
    await signOnHostAs(page, codeAddress);
    phrase = await exportedPhrase(page);
    expect(mnemonicToAccount(phrase).address).toBe(codeAddress);
  });

  it("a new browser context restores with the recovery code (a wrong one is refused) and signs as the same address; export shows the same phrase", async () => {
    const { page } = await openTab();
    await signInOnHost(s, page, codeUser);
    await dialog(page).getByRole("heading", { name: "Restore your wallet" }).waitFor();
    const field = dialog(page).getByPlaceholder("Recovery code");
    await field.fill("not a code");
    await dialog(page).getByRole("button", { name: "Restore with code" }).click();
    await dialog(page).getByText("A recovery code has 32 letters and digits, in groups of 4.").waitFor();
    await field.fill("0000-0000-0000-0000-0000-0000-0000-0000");
    await dialog(page).getByRole("button", { name: "Restore with code" }).click();
    await dialog(page)
      .getByText("This recovery code does not open your wallet. Check it and try again.")
      .waitFor();
    await shot(page, "74-custody-restore-wrong-code");
    await field.fill(code.toLowerCase());
    await dialog(page).getByRole("button", { name: "Restore with code" }).click();
    await dialog(page).waitFor({ state: "detached" });
    expect(await addressOf(page)).toBe(codeAddress);
    await signOnHostAs(page, codeAddress);
    expect(await exportedPhrase(page)).toBe(phrase);
  });
});
