/**
 * The rest of the error catalogue (spec §8) as a person meets it in the modal: 'Connection failed' /
 * 'The code could not be verified' when the service cannot be reached while the code is checked,
 * 'Connection timed out' / 'It looks like you need more time.' when a code or link outlives its ten
 * minutes, and 'Permission denied' when the service refuses for now (too many codes to one address).
 * Real service, real Chromium; the network failure is Chromium's own (the request is aborted in the
 * browser), the clock is the page's (Playwright's clock moves it ten minutes on).
 */
import { randomBytes } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

let s: Stack;
let context: BrowserContext;
beforeAll(async () => {
  s = await startStack("host");
  context = await s.browser.newContext({ viewport: { width: 900, height: 760 } });
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

const TEN_MINUTES = 10 * 60 * 1000;
const dialog = (page: Page) => page.getByRole("dialog");
const unique = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;

/**
 * The host page; with `clockAt`, its clock starts that long ago (so moving it ten minutes on leaves it
 * in the past, where the service still accepts its stamps).
 */
async function open(extra = "", clockAt?: number): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  if (clockAt !== undefined) await page.clock.install({ time: Date.now() - clockAt });
  await page.goto(`${s.hostOrigin}/?ui=%7B%7D${extra}`);
  await page.getByTestId("status").filter({ hasNotText: "INITIALIZING" }).waitFor();
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).waitFor();
  return page;
}

async function submitEmail(page: Page, email: string): Promise<void> {
  await page.getByRole("textbox").fill(email);
  const submit = dialog(page).getByRole("button", { name: "Continue", exact: true });
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
}

async function errorView(page: Page): Promise<{ title: string; body: string; buttons: string[] }> {
  const view = dialog(page).getByTestId("lk-connection-error");
  await view.waitFor();
  return {
    title: ((await view.getByRole("heading").textContent()) ?? "").trim(),
    body: ((await view.getByRole("alert").textContent()) ?? "").trim(),
    buttons: (await view.getByRole("button").allTextContents()).map((t) => t.trim()),
  };
}

describe("OTP: the service cannot be reached while the code is checked", () => {
  it("shows 'Connection failed' / 'The code could not be verified'; Try again sends the same code and signs in", async () => {
    const email = unique("unreachable");
    const page = await open();
    const sent = s.mailCount(email);
    await submitEmail(page, email);
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    const code = await s.otpCode(email, sent);

    // The browser's request to check the code fails before it reaches the service.
    const check = `${s.serviceUrl}/signer/v1/otp`;
    await page.route(check, (route) => route.abort("connectionrefused"));
    await typeOtp(page, code);
    expect(await errorView(page)).toEqual({
      title: "Connection failed",
      body: "The code could not be verified",
      buttons: ["Try again", "Use another method"],
    });
    // The view has its own Try again: no resend link under it.
    expect(await dialog(page).getByRole("button", { name: "Resend" }).count()).toBe(0);
    await shot(page, "70-otp-connection-failed");

    // The service is reachable again: Try again checks the same code, and the user is in.
    await page.unroute(check);
    await dialog(page).getByRole("button", { name: "Try again" }).click();
    await page
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await dialog(page).waitFor({ state: "detached" });
    // One code was mailed: Try again did not ask for another.
    expect(s.mailCount(email)).toBe(sent + 1);
    await page.close();
  });

  it("Use another method returns to the first step", async () => {
    const email = unique("another");
    const page = await open();
    const sent = s.mailCount(email);
    await submitEmail(page, email);
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    const check = `${s.serviceUrl}/signer/v1/otp`;
    await page.route(check, (route) => route.abort("internetdisconnected"));
    await typeOtp(page, await s.otpCode(email, sent));
    await errorView(page);
    await dialog(page).getByRole("button", { name: "Use another method" }).click();
    await dialog(page).getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.getByTestId("status").textContent()).toBe("DISCONNECTED");
    await page.close();
  });
});

describe("a code or link that outlives its time", () => {
  it("OTP: after ten minutes 'Connection timed out' / 'It looks like you need more time.'; Try again mails a new code that signs in", async () => {
    const email = unique("slow");
    const page = await open("", TEN_MINUTES + 90_000);
    const sent = s.mailCount(email);
    // OTP mode shows the boxes before the code is sent, and the ten minutes start when the page has the
    // service's answer (the mail can arrive first): wait for that answer, and for the page to take it.
    const codeSent = page.waitForResponse((r) =>
      /\/signer\/v1\/(signup|auth)$/.test(new URL(r.url()).pathname),
    );
    await submitEmail(page, email);
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    await s.otpCode(email, sent);
    await (await codeSent).finished();
    await page.evaluate(() => new Promise<void>((resolve) => queueMicrotask(resolve)));

    await page.clock.fastForward(TEN_MINUTES);
    expect(await errorView(page)).toEqual({
      title: "Connection timed out",
      body: "It looks like you need more time.",
      buttons: ["Try again", "Use another method"],
    });
    await shot(page, "71-otp-timed-out");

    await dialog(page).getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    const fresh = await s.otpCode(email, sent + 1);
    await typeOtp(page, fresh);
    await page
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await page.close();
  });

  it("magic link: after ten minutes the timeout view; Try again mails a new link", async () => {
    const email = unique("slow-link");
    const page = await open("&app=ml", TEN_MINUTES + 90_000);
    const sent = s.mailCount(email);
    await submitEmail(page, email);
    await dialog(page).getByRole("heading", { name: "Check your email" }).waitFor();
    await s.magicLink(email, sent);

    await page.clock.fastForward(TEN_MINUTES);
    expect((await errorView(page)).title).toBe("Connection timed out");
    await dialog(page).getByRole("button", { name: "Try again" }).click();
    await dialog(page).getByRole("heading", { name: "Check your email" }).waitFor();
    await s.magicLink(email, sent + 1);
    expect(s.mailCount(email)).toBe(sent + 2);
    await page.close();
  });
});

describe("the service refuses for now", () => {
  it("too many codes to one address: 'Permission denied' / 'The request is currently not allowed…'", async () => {
    const email = unique("limited");
    // Ten codes to this address (the default per-address limit of a window), asked by the app's page.
    const page = await open();
    for (let i = 0; i < 10; i++) {
      const sent = s.mailCount(email);
      await submitEmail(page, email);
      await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
      await s.otpCode(email, sent);
      await dialog(page).getByRole("button", { name: "Back" }).click();
      await dialog(page).getByRole("heading", { name: "Sign in" }).waitFor();
    }
    await submitEmail(page, email);
    const banner = dialog(page).getByRole("alert");
    await banner.waitFor();
    expect(await banner.locator(".lk-banner-title").textContent()).toBe("Permission denied");
    expect(await banner.locator(".lk-banner-body").first().textContent()).toBe(
      "The request is currently not allowed by the agent or the platform. Try again later.",
    );
    // The service's own reason stays readable beneath.
    expect(await banner.getByTestId("lk-error-detail").textContent()).toMatch(/try again/i);
    await shot(page, "72-permission-denied");
    await page.close();
  });
});
