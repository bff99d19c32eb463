import type { BrowserContext, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// The modal in a bare host page (e2e/host), with the UI config from the query string.
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

async function open(ui: object = {}, extra = ""): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/?ui=${encodeURIComponent(JSON.stringify(ui))}${extra}`);
  await page.getByTestId("status").filter({ hasNotText: "INITIALIZING" }).waitFor();
  return page;
}

async function openModal(page: Page) {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await page.getByRole("dialog").waitFor();
}

const dialog = (page: Page) => page.getByRole("dialog");

async function toOtpStep(page: Page, email: string) {
  await page.getByRole("textbox").fill(email);
  const submit = dialog(page).locator("button[type=submit]");
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
  await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
}

describe("magic link", () => {
  it("a returning user signs in by the link from the mail, opened in the same browser", async () => {
    const email = "returning@example.com";
    // First visit: sign up (magic-link app), then sign out.
    for (const round of ["signup", "returning"]) {
      const page = await open({}, "&app=ml");
      await openModal(page);
      const sent = s.mailCount(email);
      await page.getByRole("textbox").fill(email);
      await expect
        .poll(() => dialog(page).getByRole("button", { name: "Continue", exact: true }).isEnabled())
        .toBe(true);
      await dialog(page).getByRole("button", { name: "Continue", exact: true }).click();
      await dialog(page).getByRole("heading", { name: "Check your email" }).waitFor();
      expect(await dialog(page).textContent()).toContain(email);
      expect(await dialog(page).getByRole("button", { name: "Back" }).count()).toBe(1);
      if (round === "returning") await shot(page, "20-email-verify");
      const link = await s.magicLink(email, sent);
      expect(link.startsWith(`${s.hostOrigin}/?`)).toBe(true);
      const landing = await context.newPage();
      await landing.goto(link);
      await landing
        .getByTestId("status")
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      // The auth parameters are stripped; the page's own stay, and so does the signup marker of a link
      // that made a new account (spec §4, §9) until the modal resets.
      expect(new URL(landing.url()).search).toBe(round === "signup" ? "?app=ml&lk-signup=true" : "?app=ml");
      if (round === "signup") {
        await landing.getByRole("button", { name: "Open sign-in" }).click();
        await dialog(landing).getByRole("button", { name: "Close" }).click();
        await dialog(landing).waitFor({ state: "detached" });
        expect(new URL(landing.url()).search).toBe("?app=ml");
        expect(await landing.getByTestId("status").textContent()).toBe("CONNECTED");
      }
      // The tab that asked hears of it: its modal completes and closes.
      await page
        .getByTestId("status")
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.evaluate(() => window.lkSuccess)).toBe(1);
      const address = (await page.getByTestId("address").textContent()) as Hex;
      await page.getByRole("button", { name: "Sign", exact: true }).click();
      await page.getByTestId("signature").filter({ hasText: "0x" }).waitFor();
      const signature = (await page.getByTestId("signature").textContent()) as Hex;
      expect(await verifyMessage({ address, message: "e2e", signature })).toBe(true);
      if (round === "returning") await shot(landing, "21-magic-link-landed");
      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByTestId("status").filter({ hasText: "DISCONNECTED" }).waitFor();
      await landing.close();
      await page.close();
    }
  });

  it("while the link's sign-in completes, the modal opens at email_completing, then completes", async () => {
    const email = "completing@example.com";
    const page = await open({}, "&app=ml");
    await openModal(page);
    const sent = s.mailCount(email);
    await page.getByRole("textbox").fill(email);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await dialog(page).getByRole("heading", { name: "Check your email" }).waitFor();
    const link = await s.magicLink(email, sent);
    await page.close();

    // The landing page's whoami is held back for a moment, so the completion can be seen.
    const landing = await context.newPage();
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await landing.route("**/signer/v1/whoami", async (route) => {
      await held;
      await route.continue();
    });
    await landing.goto(link);
    await landing
      .getByTestId("status")
      .filter({ hasText: /^AUTHENTICATING_EMAIL$/ })
      .waitFor();
    await landing.getByRole("button", { name: "Open sign-in" }).click();
    const completing = landing.getByRole("dialog");
    await completing.getByText("Signing you in...").waitFor();
    expect(await completing.locator("[aria-busy=true] .lk-spinner").count()).toBe(1);
    await shot(landing, "21a-email-completing");
    release();
    await landing
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await completing.waitFor({ state: "detached" });
    expect(await landing.getByTestId("address").textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The browser context is shared with the next tests: leave it signed out.
    await landing.getByRole("button", { name: "Log out" }).click();
    await landing.getByTestId("status").filter({ hasText: "DISCONNECTED" }).waitFor();
    await landing.close();
  });
});

describe("UI config", () => {
  it("defaults: header with close, 'Sign in', email then 'or' then 'I have a passkey', the terms line", async () => {
    const page = await open();
    await openModal(page);
    const d = dialog(page);
    expect(await d.getByRole("heading", { name: "Sign in" }).count()).toBe(1);
    expect(await d.getByRole("button", { name: "Close" }).count()).toBe(1);
    expect(await d.getByRole("button", { name: "Back" }).count()).toBe(0);
    expect(await d.getByPlaceholder("Email").count()).toBe(1);
    expect(await d.locator(".lk-divider").allTextContents()).toEqual(["or"]);
    expect(await d.getByRole("button", { name: "I have a passkey" }).count()).toBe(1);
    expect(await d.locator("footer").textContent()).toContain(
      "By signing in, you agree to the Terms of Service",
    );
    expect(await d.locator("footer").textContent()).toContain("Protected by");
    expect(await d.getByText("Contact support").count()).toBe(0);
    // No backdrop blur unless the theme asks for one (it redraws the page on every frame without a GPU).
    expect(await page.getByTestId("lk-backdrop").evaluate((el) => getComputedStyle(el).backdropFilter)).toBe(
      "none",
    );
    await page.close();
  });

  it("hides the heading, the header, the close and the back buttons", async () => {
    let page = await open({ hideHeading: true });
    await openModal(page);
    expect(await dialog(page).getByRole("heading", { name: "Sign in" }).count()).toBe(0);
    await shot(page, "22-config-hide-heading");
    await page.close();

    page = await open({ hideHeader: true });
    await openModal(page);
    expect(await dialog(page).locator("header").count()).toBe(0);
    expect(await dialog(page).getByRole("button", { name: "Close" }).count()).toBe(0);
    await page.close();

    page = await open({ hideClose: true, hideBack: true });
    await openModal(page);
    expect(await dialog(page).getByRole("button", { name: "Close" }).count()).toBe(0);
    await toOtpStep(page, "hide-back@example.com");
    expect(await dialog(page).getByRole("button", { name: "Back" }).count()).toBe(0);
    await page.keyboard.press("Escape");
    await dialog(page).waitFor({ state: "detached" });
    await page.close();
  });

  it("email section: placeholder, button label, or the inline arrow", async () => {
    let page = await open({
      sections: [[{ type: "email", placeholder: "you@work.com", buttonLabel: "Email me a code" }]],
    });
    await openModal(page);
    const d = dialog(page);
    expect(await d.getByPlaceholder("you@work.com").count()).toBe(1);
    expect(await d.getByRole("button", { name: "Email me a code" }).count()).toBe(1);
    // Only one section: no divider, no passkey.
    expect(await d.locator(".lk-divider").count()).toBe(0);
    expect(await d.getByRole("button", { name: "I have a passkey" }).count()).toBe(0);
    await shot(page, "23-config-email-only");
    await page.close();

    page = await open({ sections: [[{ type: "email", hideButton: true }], [{ type: "passkey" }]] });
    await openModal(page);
    const arrow = dialog(page).locator(".lk-arrow");
    expect(await arrow.count()).toBe(1);
    expect(await arrow.isDisabled()).toBe(true);
    expect(await dialog(page).locator(".lk-btn-primary").count()).toBe(0);
    await page.getByRole("textbox").fill("arrow@example.com");
    await expect.poll(() => arrow.isEnabled()).toBe(true);
    await shot(page, "24-config-inline-arrow");
    await arrow.click();
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    await page.close();
  });

  it("passkey-only section shows 'Continue with passkey'", async () => {
    const page = await open({ sections: [[{ type: "passkey" }]] });
    await openModal(page);
    expect(await dialog(page).getByRole("button", { name: "Continue with passkey" }).count()).toBe(1);
    expect(await dialog(page).getByRole("textbox").count()).toBe(0);
    await page.close();
  });

  it("four illustration styles draw four different pictures", async () => {
    const drawn = new Set<string>();
    for (const style of ["outline", "linear", "filled", "flat"]) {
      const page = await open({ illustrationStyle: style });
      await openModal(page);
      await toOtpStep(page, `illustration-${style}@example.com`);
      const illustration = dialog(page).locator(".lk-illustration");
      expect(await illustration.getAttribute("data-illustration")).toBe(`mail-${style}`);
      drawn.add(await illustration.innerHTML());
      await shot(page, `25-illustration-${style}`);
      await page.close();
    }
    expect(drawn.size).toBe(4);
  });

  it("theme: dark mode, accent colour, radius, font, backdrop blur; terms link; header content", async () => {
    const page = await open({
      theme: {
        mode: "dark",
        accentColor: "rgb(219, 39, 119)",
        radius: "4px",
        fontFamily: "monospace",
        backdropBlur: "3px",
      },
      termsUrl: "https://example.com/terms",
      header: "Acme Shop",
    });
    await openModal(page);
    // The header's content sits between Back and Close.
    expect(await dialog(page).locator("header .lk-header-center").textContent()).toBe("Acme Shop");
    const root = page.locator(".lk-root").filter({ has: page.getByRole("dialog") });
    expect(await root.getAttribute("data-theme")).toBe("dark");
    await page.getByRole("textbox").fill("theme@example.com");
    const button = dialog(page).getByRole("button", { name: "Continue", exact: true });
    await expect.poll(() => button.isEnabled()).toBe(true);
    const look = await button.evaluate((el) => {
      const c = getComputedStyle(el);
      const card = getComputedStyle(el.closest(".lk-card") as Element);
      return {
        bg: c.backgroundColor,
        font: c.fontFamily,
        radius: card.borderTopLeftRadius,
        cardBg: card.backgroundColor,
        backdrop: getComputedStyle(el.closest(".lk-overlay") as Element).backdropFilter,
      };
    });
    expect(look).toEqual({
      bg: "rgb(219, 39, 119)",
      font: "monospace",
      radius: "4px",
      cardBg: "rgb(17, 24, 39)",
      backdrop: "blur(3px)",
    });
    expect(await dialog(page).getByRole("link", { name: "Terms of Service" }).getAttribute("href")).toBe(
      "https://example.com/terms",
    );
    await shot(page, "26-config-theme-dark");
    await page.close();
  });

  it("supportUrl never shows on the email steps (only passkey and OAuth steps)", async () => {
    const page = await open({ supportUrl: "https://example.com/help" });
    await openModal(page);
    expect(await dialog(page).getByText("Contact support").count()).toBe(0);
    await toOtpStep(page, "support@example.com");
    expect(await dialog(page).getByText("Contact support").count()).toBe(0);
    expect(await dialog(page).locator("footer").textContent()).toContain("Email not received?");
    await page.close();
  });

  it("session settings (spec §3): the auth frame's element id and the session lifetime", async () => {
    const session = { iframeId: "my-auth-frame", expirationSeconds: 600 };
    const page = await open({}, `&session=${encodeURIComponent(JSON.stringify(session))}`);
    const frame = page.locator("iframe#my-auth-frame");
    expect(await frame.getAttribute("src")).toMatch(new RegExp(`^${s.serviceUrl}/frames/auth`));
    await openModal(page);
    const email = "session-settings@example.com";
    const sent = s.mailCount(email);
    await toOtpStep(page, email);
    const before = Date.now();
    await typeOtp(page, await s.otpCode(email, sent));
    await page
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    // The session lasts what the settings asked: ten minutes, not the default fifteen.
    const expires = await page.evaluate(() => window.lkSigner.sessionManager.getSession()?.expirationDateMs);
    expect(expires).toBeGreaterThanOrEqual(before + 590_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 600_000);
    // The browser context is shared: the next tests start signed out.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByTestId("status").filter({ hasText: "DISCONNECTED" }).waitFor();
    await page.close();
  });

  it("AuthCard renders the same flow inline and signs in", async () => {
    const page = await open({}, "&card=1");
    const card = page.locator("section.lk-card");
    await card.waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await card.getByRole("button", { name: "Close" }).count()).toBe(0);
    await shot(page, "27-auth-card");
    const email = "card@example.com";
    const sent = s.mailCount(email);
    await card.getByRole("textbox").fill(email);
    await expect
      .poll(() => card.getByRole("button", { name: "Continue", exact: true }).isEnabled())
      .toBe(true);
    await card.getByRole("button", { name: "Continue", exact: true }).click();
    await card.getByRole("heading", { name: "Enter verification code" }).waitFor();
    await typeOtp(page, await s.otpCode(email, sent));
    await page.getByTestId("address").waitFor();
    // onAuthSuccess once 'Verified!' has shown for its second.
    await expect.poll(() => page.evaluate(() => window.lkSuccess)).toBe(1);
    await page.close();
  });

  it("in German (locale 'de', loaded on demand): every step's texts, its errors, and the app's overrides", async () => {
    const page = await open({ termsUrl: "https://example.com/terms" }, "&locale=de");
    await openModal(page);
    const d = page.getByRole("dialog", { name: "Anmelden" });
    await d.getByRole("heading", { name: "Anmelden" }).waitFor();
    expect(await page.locator(".lk-root").getAttribute("lang")).toBe("de");
    const text = await d.textContent();
    for (const t of [
      "oder",
      "Ich habe einen Passkey",
      "Mit der Anmeldung stimmst du den Nutzungsbedingungen zu",
      "Geschützt durch",
    ])
      expect(text).toContain(t);
    expect(await d.getByRole("link", { name: "Nutzungsbedingungen" }).count()).toBe(1);
    expect(await d.getByRole("button", { name: "Schließen" }).count()).toBe(1);
    expect(text).not.toContain("Sign in");

    await d.getByPlaceholder("E-Mail").fill("ada@example");
    await d.getByPlaceholder("E-Mail").blur();
    await d.getByText("Bitte gib eine gültige E-Mail-Adresse ein.").waitFor();

    const email = "deutsch@example.com";
    const sent = s.mailCount(email);
    await d.getByPlaceholder("E-Mail").fill(email);
    const submit = d.getByRole("button", { name: "Weiter", exact: true });
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await d.getByRole("heading", { name: "Bestätigungscode eingeben" }).waitFor();
    expect(await d.textContent()).toContain(`Wir haben einen Code gesendet an ${email}`);
    expect(await d.getByRole("button", { name: "Zurück" }).count()).toBe(1);
    expect(await d.textContent()).toContain("Keine E-Mail erhalten?");
    const code = await s.otpCode(email, sent);
    const wrong = code === "000000" ? "111111" : "000000";
    await d.getByLabel("Ziffer 1 von 6").focus();
    await page.keyboard.type(wrong, { delay: 20 });
    await d.getByText("Der eingegebene Code ist falsch").waitFor();
    await shot(page, "28-german-otp-error");
    await expect.poll(() => d.getByLabel("Ziffer 1 von 6").isEnabled()).toBe(true);
    await d.getByLabel("Ziffer 1 von 6").focus();
    await page.keyboard.type(code, { delay: 20 });
    await d.getByRole("heading", { name: "Bestätigt!" }).waitFor();
    await page.getByTestId("address").waitFor();
    await page.close();

    // The app's overrides win over the locale's texts.
    const custom = await open(
      {},
      `&locale=de&texts=${encodeURIComponent(JSON.stringify({ signIn: "Willkommen" }))}`,
    );
    await openModal(custom);
    await custom
      .getByRole("dialog", { name: "Willkommen" })
      .getByRole("heading", { name: "Willkommen" })
      .waitFor();
    expect(await custom.getByRole("dialog").textContent()).toContain("Ich habe einen Passkey");
    await custom.close();
  });
});
