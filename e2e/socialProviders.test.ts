import { attachDevIdentityProvider } from "@latchkey/server/dev";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// Apple, Facebook, Twitch, GitHub and Discord in the modal, each against its local stand-in (the dev
// stack's, as `npm start` runs them): Apple posts its answer as a form and gives the name once, Facebook
// has no ID token and may have no email, Twitch gives the email through `claims`, GitHub and Discord
// from their user APIs. Sign-up and sign-in by pop-up and by redirect, and linking by email code.
let s: Stack;
let idp: { close(): Promise<void> };
beforeAll(async () => {
  s = await startStack("host");
  idp = await attachDevIdentityProvider(s.service, s.serviceUrl);
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await s?.close();
});

const PROVIDERS = [
  // name on the button, id, a test person whose email links nobody (none, unverified or Apple's relay)
  { name: "Apple", id: "apple", newcomer: "001234.relay" },
  { name: "Facebook", id: "facebook", newcomer: "10000002" },
  { name: "Twitch", id: "twitch", newcomer: "41000002" },
  { name: "GitHub", id: "github", newcomer: "5002" },
  { name: "Discord", id: "discord", newcomer: "80000000000000002" },
] as const;
/** Each stand-in's Ada: ada@example.com, an address the provider vouches for. */
const ADA = {
  apple: "001234.ada",
  facebook: "10000001",
  twitch: "41000001",
  github: "5001",
  discord: "80000000000000001",
};

const social = (mode: "popup" | "redirect") => ({
  sections: [[{ type: "email" }], PROVIDERS.map((p) => ({ type: "social", authProviderId: p.id, mode }))],
});

const contexts: BrowserContext[] = [];
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

async function open(ui: object): Promise<Page> {
  const ctx = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
  contexts.push(ctx);
  const page = await ctx.newPage();
  // 15 s, as externalWallets: a pop-up sign-up under a loaded machine took more than 10 s to connect.
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/?ui=${encodeURIComponent(JSON.stringify(ui))}`);
  await status(page).filter({ hasNotText: "INITIALIZING" }).waitFor();
  return page;
}

const dialog = (page: Page) => page.getByRole("dialog");
const status = (page: Page) => page.getByTestId("status");
const connected = (page: Page) =>
  status(page)
    .filter({ hasText: /^CONNECTED$/ })
    .waitFor();

async function openModal(page: Page) {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).waitFor();
}

/** Clicks a social button and picks `sub` in the provider's pop-up; answers the pop-up. */
async function popupSignIn(page: Page, provider: string, sub: string): Promise<Page> {
  const popup = page.waitForEvent("popup");
  await dialog(page)
    .getByRole("button", { name: `Continue with ${provider}` })
    .click();
  const win = await popup;
  await win.locator(`button.user[data-sub="${sub}"]`).click();
  return win;
}

/** Clicks a social button in redirect mode and picks `sub` on the provider's page; back on the app. */
async function redirectSignIn(page: Page, provider: string, sub: string): Promise<void> {
  await dialog(page)
    .getByRole("button", { name: `Continue with ${provider}` })
    .click();
  await page.waitForURL((url) => !url.href.startsWith(s.hostOrigin));
  await page.locator(`button.user[data-sub="${sub}"]`).click();
  await page.waitForURL((url) => url.href.startsWith(s.hostOrigin));
}

async function logOut(page: Page) {
  await page.getByRole("button", { name: "Log out" }).click();
  await status(page)
    .filter({ hasText: /^DISCONNECTED$/ })
    .waitFor();
}

const methods = (page: Page) =>
  page.evaluate(async () =>
    (await window.lkSigner.listAuthMethods()).oauthProviders.map((p) => ({
      provider: p.providerName,
      shown: p.userDisplayName,
    })),
  );

describe("social providers as they behave, in the modal", () => {
  it("every provider's button shows its logo", async () => {
    const page = await open(social("popup"));
    await openModal(page);
    for (const p of PROVIDERS) {
      await dialog(page)
        .getByRole("button", { name: `Continue with ${p.name}` })
        .waitFor();
      expect(await dialog(page).locator(`button[data-provider=${p.id}] svg`).count()).toBe(1);
    }
    await shot(page, "47-social-providers");
  });

  for (const p of PROVIDERS) {
    it(`${p.name}: signs up by pop-up, then back in by redirect to the same wallet`, async () => {
      const page = await open(social("popup"));
      await openModal(page);
      const popup = page.waitForEvent("popup");
      await dialog(page)
        .getByRole("button", { name: `Continue with ${p.name}` })
        .click();
      const win = await popup;
      await dialog(page)
        .getByRole("heading", { name: `Continue with ${p.name}` })
        .waitFor();
      await win.getByRole("heading", { name: `Sign in with ${p.name}` }).waitFor();
      if (p.id === "facebook")
        // Facebook's re-authentication, not OIDC's select_account.
        expect(await win.getByRole("status").textContent()).toBe(
          "Re-enter your Facebook password to continue.",
        );
      await shot(win, `48-${p.id}-stand-in`);
      await win.locator(`button.user[data-sub="${p.newcomer}"]`).click();
      await connected(page);
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.evaluate(() => window.lkSigner.store.getState().isNewUser)).toBe(true);
      const address = await page.getByTestId("address").textContent();
      const signedUp = await methods(page);
      expect(signedUp).toEqual([expect.objectContaining({ provider: p.id })]);
      await logOut(page);

      const again = await open(social("redirect"));
      await openModal(again);
      await redirectSignIn(again, p.name, p.newcomer);
      await connected(again);
      expect(await again.getByTestId("address").textContent()).toBe(address);
      expect(await again.evaluate(() => window.lkSigner.store.getState().isNewUser)).not.toBe(true);
      // Apple gave the name at the first authorisation only; it is kept.
      if (p.id === "apple")
        expect(await methods(again)).toEqual([{ provider: "apple", shown: "Grace Hopper" }]);
      if (p.id === "facebook")
        expect(await again.evaluate(() => window.lkSigner.user?.email)).toBeUndefined();
      await logOut(again);
    });
  }

  it("Apple by redirect: the answer is a form Apple's page posts; the new user lands on the app, named", async () => {
    const page = await open(social("redirect"));
    await openModal(page);
    await redirectSignIn(page, "Apple", "001234.alan");
    await connected(page);
    // The return's parameters are stripped on load; the signer keeps what they said: a new user.
    expect(new URL(page.url()).searchParams.has("isSignup")).toBe(false);
    expect(new URL(page.url()).searchParams.has("bundle")).toBe(false);
    expect(await page.evaluate(() => window.lkSigner.getState().isNewUser)).toBe(true);
    expect(await page.evaluate(() => window.lkSigner.user?.email)).toBe("alan@example.com");
    expect(await methods(page)).toEqual([{ provider: "apple", shown: "Alan Turing" }]);
  });

  it("a person signed up by email links each provider by the email code, then each signs in alone", async () => {
    const email = "ada@example.com";
    const page = await open(social("popup"));
    await openModal(page);
    const sent = s.mailCount(email);
    await dialog(page).getByRole("textbox").fill(email);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await typeOtp(page, await s.otpCode(email, sent));
    await connected(page);
    const address = await page.getByTestId("address").textContent();
    await logOut(page);

    for (const p of PROVIDERS) {
      await openModal(page);
      const before = s.mailCount(email);
      await popupSignIn(page, p.name, ADA[p.id]);
      await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
      expect(await dialog(page).textContent()).toContain(email);
      await typeOtp(page, await s.otpCode(email, before));
      await connected(page);
      await dialog(page).waitFor({ state: "detached" });
      expect(await page.getByTestId("address").textContent()).toBe(address);
      await logOut(page);
    }
    // Linked: each provider alone signs in now, with no mail.
    const before = s.mailCount(email);
    for (const p of PROVIDERS) {
      await openModal(page);
      await popupSignIn(page, p.name, ADA[p.id]);
      await connected(page);
      expect(await page.getByTestId("address").textContent()).toBe(address);
      if (p.id === "discord")
        expect((await methods(page)).map((m) => m.provider)).toEqual(PROVIDERS.map((x) => x.id));
      await logOut(page);
    }
    expect(s.mailCount(email)).toBe(before);
  });

  it("a Facebook person without an email is a wallet of its own, never linked by email", async () => {
    const page = await open(social("popup"));
    await openModal(page);
    await popupSignIn(page, "Facebook", "10000002");
    await connected(page);
    expect(await page.evaluate(() => window.lkSigner.user?.email)).toBeUndefined();
    expect(await dialog(page).count()).toBe(0);
  });
});
