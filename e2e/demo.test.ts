import type { BrowserContext, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, skipPasskeyOffer, startStack, typeOtp } from "./helpers/stack";

// The demo app (apps/demo, production build) against the real service: what a person does after
// `npm start`.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo");
}, 120_000);
afterAll(async () => {
  await s?.close();
});

async function openDemo(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  page.on("console", (m) => {
    if (m.type() === "error") console.error("console", m.text());
  });
  await page.goto(`${s.hostOrigin}/`);
  await page.getByRole("button", { name: "Sign in" }).first().waitFor();
  await page.waitForFunction(() => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"));
  return page;
}

async function openModal(page: Page) {
  await page.locator(".nav").getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("dialog").waitFor();
}

async function startEmail(page: Page, email: string) {
  await page.getByPlaceholder("Email").fill(email);
  const button = page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true });
  await expect.poll(() => button.isEnabled()).toBe(true);
  await button.click();
  await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
}

describe("demo app", () => {
  let context: BrowserContext;
  let page: Page;
  const email = "ada@example.com";

  beforeAll(async () => {
    context = await s.browser.newContext({ viewport: { width: 1200, height: 800 } });
    page = await openDemo(context);
  });
  afterAll(async () => {
    await context?.close();
  });

  it("a new user signs up by email code, sees the addresses and signs a message that verifies", async () => {
    await shot(page, "01-demo-landing");
    await openModal(page);
    await shot(page, "02-initial");
    await page.getByPlaceholder("Email").fill("not-an-email");
    await page.getByPlaceholder("Email").blur();
    await expect.poll(() => page.getByText("Must provide a valid email.").isVisible()).toBe(true);
    expect(
      await page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true }).isDisabled(),
    ).toBe(true);
    await shot(page, "03-initial-invalid-email");

    const sent = s.mailCount(email);
    await startEmail(page, email);
    expect(await page.getByRole("dialog").textContent()).toContain(email);
    await shot(page, "04-otp-verify");
    const code = await s.otpCode(email, sent);
    await page.getByLabel("Digit 1 of 6").focus();
    await page.keyboard.type(code.slice(0, 5), { delay: 20 });
    await shot(page, "05-otp-typing");
    await page.keyboard.type(code.slice(5));
    await page.getByRole("heading", { name: "Verified!" }).waitFor();
    await shot(page, "06-otp-verified");
    await page.getByTestId("evm-address").waitFor();
    // The demo offers a passkey after sign-up (addPasskeyOnSignup): skip it (the passkey flow has its own tests).
    await page.getByRole("dialog").getByRole("heading", { name: "Add a passkey" }).waitFor();
    await shot(page, "07a-passkey-offer-after-signup");
    await expect(skipPasskeyOffer(page)).resolves.toBe(true);
    await page.getByRole("dialog").waitFor({ state: "detached" });

    const address = (await page.getByTestId("evm-address").textContent()) as Hex;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await page.getByTestId("solana-address").textContent()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    await shot(page, "07-signed-in");

    // The demo asks before every signature (`ui.confirmTransactions`): the message, then the typed data.
    await page.getByRole("button", { name: "Sign message" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Hello from Latchkey!").waitFor();
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await page.getByTestId("message-signature").waitFor();
    const signature = (await page.getByTestId("message-signature").textContent()) as Hex;
    expect(await verifyMessage({ address, message: "Hello from Latchkey!", signature })).toBe(true);
    await page.getByRole("button", { name: "Sign typed data" }).click();
    await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await page.getByTestId("typed-signature").waitFor();
    await expect
      .poll(() => page.getByTestId("verdict").allTextContents())
      .toEqual([
        "✓ Signature verified: recovered address matches",
        "✓ Signature verified: recovered address matches",
      ]);
    await shot(page, "08-signed");

    await page.locator(".nav").getByRole("button", { name: "Log out" }).click();
    await page.locator(".nav").getByRole("button", { name: "Sign in" }).waitFor();
  });

  it("a wrong code shows the error, clears the boxes and lets the user try again", async () => {
    await openModal(page);
    const sent = s.mailCount(email);
    await startEmail(page, email);
    const code = await s.otpCode(email, sent);
    const wrong = code === "000000" ? "111111" : "000000";
    await typeOtp(page, wrong);
    await page.getByText("The code you entered is incorrect").waitFor();
    const boxes = await page
      .getByRole("dialog")
      .locator(".lk-otp input")
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(boxes).toEqual(["", "", "", "", "", ""]);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("Digit 1 of 6");
    await shot(page, "09-otp-wrong-code");
    await typeOtp(page, code);
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.getByTestId("evm-address").waitFor();
    await page.locator(".nav").getByRole("button", { name: "Log out" }).click();
    await page.locator(".nav").getByRole("button", { name: "Sign in" }).waitFor();
  });

  it("a pasted code fills every box; an invalid paste says so", async () => {
    await openModal(page);
    const sent = s.mailCount(email);
    await startEmail(page, email);
    const code = await s.otpCode(email, sent);
    const paste = (text: string) =>
      page.getByLabel("Digit 1 of 6").evaluate((el, text) => {
        const data = new DataTransfer();
        data.setData("text", text);
        el.dispatchEvent(
          new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
        );
      }, text);
    await paste("12ab56");
    await page.getByText("The code you entered is incorrect").waitFor();
    await shot(page, "10-otp-invalid-paste");
    // Longer than six: cut to six, which submits.
    await paste(`${code}99`);
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.getByTestId("evm-address").waitFor();
    await page.locator(".nav").getByRole("button", { name: "Log out" }).click();
    await page.locator(".nav").getByRole("button", { name: "Sign in" }).waitFor();
  });

  it("Resend shows 'Done!' for two seconds and sends another code", async () => {
    await openModal(page);
    const sent = s.mailCount(email);
    await startEmail(page, email);
    await s.otpCode(email, sent);
    const resend = page.getByRole("dialog").getByRole("button", { name: "Resend" });
    const before = Date.now();
    await resend.click();
    await page.getByRole("dialog").getByRole("button", { name: "Done!" }).waitFor();
    await shot(page, "11-resend-done");
    await s.otpCode(email, sent + 1);
    await page.getByRole("dialog").getByRole("button", { name: "Resend" }).waitFor({ timeout: 5000 });
    const shown = Date.now() - before;
    expect(shown).toBeGreaterThanOrEqual(1900);
    expect(shown).toBeLessThan(4000);
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
  });

  it("Escape and a backdrop click close the dialog; Tab stays inside it", async () => {
    await openModal(page);
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });

    await openModal(page);
    await page.mouse.click(10, 10);
    await page.getByRole("dialog").waitFor({ state: "detached" });

    await openModal(page);
    const focused: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      focused.push(
        await page.evaluate(() => (document.activeElement?.closest("[role=dialog]") ? "in" : "out")),
      );
    }
    expect(focused.every((f) => f === "in")).toBe(true);
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await page.evaluate(() => !!document.activeElement?.closest("[role=dialog]"))).toBe(true);
    }
    // Layout width (a bounding box would include the opening animation's scale).
    expect(await page.getByRole("dialog").evaluate((el) => (el as HTMLElement).offsetWidth)).toBe(368);
    await page.keyboard.press("Escape");
  });

  it("back returns to initial; close returns to initial and closes", async () => {
    await openModal(page);
    expect(await page.getByRole("button", { name: "Back" }).count()).toBe(0);
    await startEmail(page, "back@example.com");
    await page.getByRole("button", { name: "Back" }).click();
    await page.getByRole("dialog").getByRole("heading", { name: "Sign in" }).waitFor();
    await startEmail(page, "back@example.com");
    await page.getByRole("button", { name: "Close" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await openModal(page);
    // Reopened at initial.
    await page.getByRole("dialog").getByRole("heading", { name: "Sign in" }).waitFor();
    await page.keyboard.press("Escape");
  });

  it("is laid out on a phone too, in dark mode", async () => {
    const phone = await s.browser.newContext({ viewport: { width: 390, height: 780 }, colorScheme: "dark" });
    const p = await openDemo(phone);
    await shot(p, "12-phone-landing-dark");
    await openModal(p);
    await shot(p, "13-phone-modal-dark");
    expect(await p.getByRole("dialog").evaluate((el) => (el as HTMLElement).offsetWidth)).toBeLessThan(390);
    await phone.close();
  });
});
