import type { BrowserContext, Page } from "playwright-core";
import { type Hex, recoverTransactionAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, signUpInDemo, startStack } from "./helpers/stack";

// What you sign is what you see: the demo turns `ui.confirmTransactions` on, so every signature its
// "Signing policy" card asks for is shown first in the modal's confirmation step. An unlimited token
// approval shows its warning, and Cancel refuses it (the page gets the coded USER_REJECTED, the service
// signs nothing); a transfer shows what it sends, and Confirm signs it. In German too.
let s: Stack;
let context: BrowserContext;
let page: Page;
beforeAll(async () => {
  s = await startStack("demo");
  context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/`);
  await page.getByRole("button", { name: "Sign in" }).first().waitFor();
  await page.waitForFunction(() => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

/** The service's sign_transaction activities, by status. */
const signings = async () =>
  (
    await s.service.ctx.db
      .selectFrom("activities")
      .select("status")
      .where("type", "=", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2")
      .execute()
  ).map((r) => r.status);

describe("the confirmation step", () => {
  it("warns of an unlimited approval and Cancel refuses it; Confirm signs a transfer", async () => {
    await signUpInDemo(s, page, "confirm@example.com");
    const address = (await page.getByTestId("evm-address").textContent()) as Hex;
    const card = page.getByTestId("policy-card");
    await card.scrollIntoViewIfNeeded();

    await card.getByRole("button", { name: "Sign an unlimited approval" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await dialog.getByText("Transaction on chain 31337").waitFor();
    const warning = dialog.getByRole("alert");
    expect(await warning.textContent()).toBe(
      "Unlimited approval: 0x3C44…93BC could spend all of your 0x5FbD…0aa3, now and later.",
    );
    expect(await warning.isVisible()).toBe(true);
    expect(await dialog.locator(".lk-confirm-lines li").allTextContents()).toEqual([
      "Allow 0x3C44…93BC to spend UNLIMITED 0x5FbD…0aa3",
    ]);
    await shot(page, "confirm-01-unlimited-approval");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    const result = card.getByTestId("policy-result");
    await expect
      .poll(() => result.textContent())
      .toBe("✗ You cancelled: an unlimited approval was not signed (USER_REJECTED).");
    // Nothing reached the service.
    expect(await signings()).toEqual([]);

    // Closing the modal refuses too.
    await card.getByRole("button", { name: "Sign an unlimited approval" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => result.textContent()).toContain("(USER_REJECTED)");
    expect(await signings()).toEqual([]);

    // The service's preview: the dev app's policy refuses the burn address, and the step says so first.
    await card.getByRole("button", { name: "Sign 0.01 ETH to the burn address" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await dialog.getByText("The app's signing policy will refuse this.").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await signings()).toEqual([]);

    await card.getByRole("button", { name: "Sign 0.01 ETH to a friend" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    expect(await dialog.locator(".lk-confirm-lines li").allTextContents()).toEqual([
      "Send 0.01 ETH to 0x7099…79C8",
    ]);
    expect(await dialog.getByRole("alert").count()).toBe(0);
    // No chain is configured in this stack: the service says why there is no simulation.
    await dialog.getByText("Simulation unavailable: this app has no node for the chain").waitFor();
    expect(await dialog.getByText("The app's signing policy will refuse this.").count()).toBe(0);
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => result.textContent()).toContain("✓ Signed: the transfer to a friend is allowed.");
    const signed = (await result.locator("pre").textContent()) as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address);
    expect(await signings()).toEqual(["ACTIVITY_STATUS_COMPLETED"]);
  });

  it("speaks the modal's language", async () => {
    await page.getByRole("combobox", { name: "Modal language" }).selectOption("de");
    const card = page.getByTestId("policy-card");
    await card.getByRole("button", { name: "Sign an unlimited approval" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Anfrage prüfen" }).waitFor();
    expect(await dialog.getByRole("alert").textContent()).toBe(
      "Unbegrenzte Freigabe: 0x3C44…93BC könnte dein gesamtes 0x5FbD…0aa3 ausgeben, jetzt und später.",
    );
    await dialog.getByRole("button", { name: "Abbrechen" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("combobox", { name: "Modal language" }).selectOption("en");
  });
});
