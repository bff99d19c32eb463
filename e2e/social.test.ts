import { attachDevIdentityProvider } from "@latchkey/server/dev";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// Social sign-in in the modal against the dev OpenID Connect provider (the dev app's "google" and
// "auth0"): pop-up and redirect, a closed pop-up, account linking by email code, and errors.
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

const social = (mode: "popup" | "redirect") => ({
  sections: [
    [{ type: "email" }],
    [
      { type: "social", authProviderId: "google", mode },
      { type: "social", authProviderId: "auth0", mode, displayName: "Auth0" },
    ],
  ],
  supportUrl: "https://example.com/support",
});

const contexts: BrowserContext[] = [];
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

async function open(ui: object, context?: BrowserContext, extra = ""): Promise<Page> {
  const ctx = context ?? (await s.browser.newContext({ viewport: { width: 900, height: 760 } }));
  if (!context) contexts.push(ctx);
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/?ui=${encodeURIComponent(JSON.stringify(ui))}${extra}`);
  await status(page).filter({ hasNotText: "INITIALIZING" }).waitFor();
  return page;
}

const dialog = (page: Page) => page.getByRole("dialog");
const status = (page: Page) => page.getByTestId("status");

async function openModal(page: Page) {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).waitFor();
}

/** Clicks a social button and answers the pop-up it opens. */
async function popupSignIn(page: Page, provider: string, sub: string, name?: string): Promise<void> {
  const popup = page.waitForEvent("popup");
  await dialog(page)
    .getByRole("button", { name: `Continue with ${provider}` })
    .click();
  const win = await popup;
  await dialog(page)
    .getByRole("heading", { name: `Continue with ${provider}` })
    .waitFor();
  await win.locator(`button.user[data-sub="${sub}"]`).click();
  if (name) await shot(page, name);
}

async function logOut(page: Page) {
  await page.getByRole("button", { name: "Log out" }).click();
  await status(page)
    .filter({ hasText: /^DISCONNECTED$/ })
    .waitFor();
}

/** Signs a new user up by email code in the modal; the page ends connected, the modal closed. */
async function emailSignUp(page: Page, email: string): Promise<void> {
  await openModal(page);
  const sent = s.mailCount(email);
  await dialog(page).getByRole("textbox").fill(email);
  const submit = dialog(page).locator("button[type=submit]");
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
  await typeOtp(page, await s.otpCode(email, sent));
  await status(page)
    .filter({ hasText: /^CONNECTED$/ })
    .waitFor();
}

let adaAddress: string;

describe("social sign-in", () => {
  it("the social section shows each provider with its logo; a pop-up sign-up connects", async () => {
    const page = await open(social("popup"));
    await openModal(page);
    for (const p of ["google", "auth0"])
      expect(await dialog(page).locator(`button[data-provider=${p}] svg`).count()).toBe(1);
    await shot(page, "40-social-initial");
    const popup = page.waitForEvent("popup");
    await dialog(page).getByRole("button", { name: "Continue with Google" }).click();
    const win = await popup;
    const completing = dialog(page);
    await completing.getByRole("heading", { name: "Continue with Google" }).waitFor();
    expect(await completing.textContent()).toContain(
      "Follow the steps in the pop up window to sign in with Google",
    );
    expect(await completing.textContent()).toContain("Need help? Contact support");
    await shot(page, "41-oauth-completing");
    await win.locator('button.user[data-sub="ada"]').waitFor();
    await shot(win, "42-oauth-provider-popup");
    await win.locator('button.user[data-sub="ada"]').click();
    await status(page)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await dialog(page).waitFor({ state: "detached" });
    expect(await page.evaluate(() => window.lkSuccess)).toBe(1);
    adaAddress = (await page.getByTestId("address").textContent()) as string;
    expect(await page.evaluate(() => window.lkSigner.user?.email)).toBe("ada@example.com");
    await logOut(page);
  });

  it("a redirect sign-in of the same user comes back connected to the same wallet", async () => {
    const page = await open(social("redirect"));
    await openModal(page);
    await dialog(page).getByRole("button", { name: "Continue with Google" }).click();
    await page.waitForURL((url) => !url.href.startsWith(s.hostOrigin));
    await page.locator('button.user[data-sub="ada"]').click();
    await page.waitForURL((url) => url.href.startsWith(s.hostOrigin));
    await status(page)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    expect(await page.getByTestId("address").textContent()).toBe(adaAddress);
    // The sign-in's parameters are gone from the address bar.
    expect(new URL(page.url()).searchParams.has("bundle")).toBe(false);
    await logOut(page);
  });

  it("closing the pop-up returns to initial, without an error", async () => {
    const page = await open(social("popup"));
    await openModal(page);
    const popup = page.waitForEvent("popup");
    await dialog(page).getByRole("button", { name: "Continue with Auth0" }).click();
    const win = await popup;
    await dialog(page).getByRole("heading", { name: "Continue with Auth0" }).waitFor();
    await win.close();
    await dialog(page).getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await dialog(page).getByRole("alert").count()).toBe(0);
    expect(await status(page).textContent()).toBe("DISCONNECTED");
  });

  it("a failed sign-in shows 'Couldn't connect to {provider}': Try again, Use another method", async () => {
    // LinkedIn is not configured for the dev app: the sign-in cannot start.
    const page = await open({
      sections: [[{ type: "social", authProviderId: "linkedin", displayName: "LinkedIn" }]],
      supportUrl: "https://example.com/support",
    });
    await openModal(page);
    const popup = page.waitForEvent("popup");
    await dialog(page).getByRole("button", { name: "Continue with LinkedIn" }).click();
    await popup;
    const view = dialog(page).getByTestId("lk-connection-error");
    await view.waitFor();
    expect(await view.getByRole("heading").textContent()).toBe("Couldn't connect to LinkedIn");
    expect(await view.getByRole("alert").textContent()).toBe("The connection failed or canceled");
    expect(await view.getByRole("button").allTextContents()).toEqual(["Try again", "Use another method"]);
    expect(await dialog(page).textContent()).toContain("Need help? Contact support");
    await shot(page, "43-oauth-error");
    // Try again starts over (a new pop-up) and fails the same way.
    const again = page.waitForEvent("popup");
    await view.getByRole("button", { name: "Try again" }).click();
    await again;
    await view.waitFor();
    await view.getByRole("button", { name: "Use another method" }).click();
    await dialog(page).getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await status(page).textContent()).toBe("DISCONNECTED");
  });

  it("cancelling on the provider's page is a user cancel: back to initial", async () => {
    const page = await open(social("popup"));
    await openModal(page);
    const popup = page.waitForEvent("popup");
    await dialog(page).getByRole("button", { name: "Continue with Google" }).click();
    await (await popup).getByRole("button", { name: "Cancel" }).click();
    await dialog(page).getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await dialog(page).getByRole("alert").count()).toBe(0);
    // And a second try signs in.
    await popupSignIn(page, "Google", "alan");
    await status(page)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await logOut(page);
  });

  it("links a provider to an email account by the email code; next time the provider alone signs in", async () => {
    const email = "grace@example.com";
    const page = await open(social("popup"));
    // Grace signs up by email first.
    await emailSignUp(page, email);
    const address = await page.getByTestId("address").textContent();
    await logOut(page);

    // Then with Google, same email: the modal asks for the code sent to it.
    await openModal(page);
    const sent = s.mailCount(email);
    await popupSignIn(page, "Google", "grace");
    await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
    expect(await dialog(page).textContent()).toContain(email);
    await shot(page, "44-oauth-linking-otp");
    await typeOtp(page, await s.otpCode(email, sent));
    await status(page)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await dialog(page).waitFor({ state: "detached" });
    expect(await page.getByTestId("address").textContent()).toBe(address);
    const methods = await page.evaluate(() => window.lkSigner.listAuthMethods());
    expect(methods.oauthProviders.map((p) => p.providerName)).toEqual(["google"]);
    await logOut(page);

    // Linked: Google alone signs in now.
    await openModal(page);
    const before = s.mailCount(email);
    await popupSignIn(page, "Google", "grace");
    await status(page)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    expect(await page.getByTestId("address").textContent()).toBe(address);
    expect(s.mailCount(email)).toBe(before);
  });

  it("adds a provider by redirect while signed in; a copied return link links nothing elsewhere", async () => {
    const signUp = async (email: string) => {
      const page = await open({});
      await emailSignUp(page, email);
      return page;
    };
    const providers = (page: Page) =>
      page.evaluate(async () =>
        (await window.lkSigner.listAuthMethods()).oauthProviders.map((p) => p.providerName),
      );
    const owner = await signUp("redirect-owner@example.com");
    const other = await signUp("redirect-other@example.com");

    // The owner starts linking Auth0 by redirect; the way back to the app is held, and its URL kept.
    const held = s.holdNextLoadWith("idToken");
    void owner
      .evaluate(() => window.lkSigner.addOauthProvider({ authProviderId: "auth0", mode: "redirect" }))
      .catch(() => {});
    await owner.waitForURL((url) => !url.href.startsWith(s.hostOrigin));
    await owner.locator('button.user[data-sub="ada"]').click();
    const back = await held;
    expect(new URL(back).searchParams.get("status")).toBe("FETCHED_ID_TOKEN_ONLY");

    // Another signed-in user who follows that link links nothing: they never asked for it.
    await other.goto(back);
    await status(other)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    expect(new URL(other.url()).searchParams.has("idToken")).toBe(false);
    expect(await providers(other)).toEqual([]);

    // The owner's page, coming back, links it.
    await owner.goto(back);
    await status(owner)
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await expect.poll(() => providers(owner)).toEqual(["auth0"]);
    expect(new URL(owner.url()).searchParams.has("idToken")).toBe(false);
  });

  it("more than two providers show as a row of logos; a custom provider shows its own logo", async () => {
    const logo = (fill: string) =>
      `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="${fill}"/></svg>`)}`;
    const providers = ["google", "facebook", "apple", "twitch"].map((id) => ({
      type: "social",
      authProviderId: id,
    }));
    const custom = {
      type: "social",
      authProviderId: "auth0",
      displayName: "Acme",
      auth0Connection: "acme",
      logoUrl: logo("#0a0"),
      logoUrlDark: logo("#fff"),
    };
    const page = await open({ sections: [[...providers, custom]], theme: { mode: "dark" } });
    await openModal(page);
    for (const name of ["Google", "Facebook", "Apple", "Twitch", "Acme"])
      await dialog(page)
        .getByRole("button", { name: `Continue with ${name}` })
        .waitFor();
    expect(await dialog(page).locator("button[data-provider] svg").count()).toBe(4);
    // Dark mode: the custom provider's dark logo is the one shown.
    const shown = await dialog(page)
      .locator("button[data-provider=auth0] img")
      .evaluateAll((imgs) =>
        imgs.filter((i) => (i as HTMLElement).offsetParent !== null).map((i) => i.getAttribute("src")),
      );
    expect(shown).toEqual([logo("#fff")]);
    await shot(page, "46-social-row-dark");
  });

  it("an OAuth error in the URL shows on the initial step", async () => {
    const page = await open(social("redirect"), undefined, "&error=The%20provider%20refused%20the%20sign-in");
    expect(new URL(page.url()).searchParams.has("error")).toBe(false);
    await openModal(page);
    const banner = dialog(page).getByRole("alert");
    await banner.waitFor();
    expect(await dialog(page).getByTestId("lk-error-detail").textContent()).toBe(
      "The provider refused the sign-in",
    );
    await shot(page, "45-oauth-url-error");
  });

  it("an app that renders only the AuthCard shows the URL's error in the card", async () => {
    const page = await open(
      social("redirect"),
      undefined,
      "&card=only&error=Access%20denied%20by%20the%20user",
    );
    const card = page.locator("section.lk-card");
    await card.getByRole("alert").waitFor();
    expect(await card.getByTestId("lk-error-detail").textContent()).toBe("Access denied by the user");
    expect(await page.getByRole("dialog").count()).toBe(0);
  });
});
