import { attachDevIdentityProvider } from "@latchkey/server/dev";
import { generate } from "otplib";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator } from "../packages/core/test/browser/virtualAuthenticator";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// The demo's account page: passkeys, social providers and the authenticator app of the signed-in user.
// Served on localhost (the passkeys' relying party), with the dev identity provider for social sign-in.
let s: Stack;
let idp: { close(): Promise<void> };
let context: BrowserContext;
beforeAll(async () => {
  s = await startStack("demo", { hostName: "localhost" });
  idp = await attachDevIdentityProvider(s.service, s.serviceUrl);
}, 120_000);
afterAll(async () => {
  await context?.close();
  await idp?.close();
  await s?.close();
});

const dialog = (page: Page) => page.getByRole("dialog");

describe("demo account page", () => {
  it("adds and removes a passkey, links and unlinks Google, turns the authenticator app on and off", async () => {
    context = await s.browser.newContext({ viewport: { width: 1100, height: 1000 }, colorScheme: "light" });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    await addVirtualAuthenticator(context, page);
    await page.goto(`${s.hostOrigin}/`);
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await dialog(page).waitFor();
    // The demo's modal: email, passkey, and Google and Auth0.
    for (const name of ["I have a passkey", "Continue with Google", "Continue with Auth0"])
      await dialog(page).getByRole("button", { name }).waitFor();
    await shot(page, "50-demo-modal-social");
    const email = "account-page@example.com";
    await dialog(page).getByRole("textbox").fill(email);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await typeOtp(page, await s.otpCode(email));
    // A new user is offered a passkey (addPasskeyOnSignup): not now.
    await dialog(page).getByRole("heading", { name: "Add a passkey" }).waitFor();
    await dialog(page).getByRole("button", { name: "Skip" }).click();
    await dialog(page).waitFor({ state: "detached" });

    const account = page.getByTestId("account");
    await account.getByRole("heading", { name: "Sign-in methods" }).waitFor();
    await account.getByText(email).waitFor();

    // Passkey: add, listed as passkey-<ms>.
    const passkeys = page.getByTestId("passkeys");
    await passkeys.getByText("No passkey yet.").waitFor();
    await passkeys.getByRole("button", { name: "Add a passkey" }).click();
    await passkeys.getByText(/^passkey-\d+/).waitFor();

    // Authenticator app: QR code and secret, confirmed with a code.
    const totp = page.getByTestId("totp");
    await totp.getByRole("button", { name: "Turn on" }).click();
    await totp.getByTestId("totp-qr").waitFor();
    const secret = (await totp.getByTestId("totp-secret").textContent()) as string;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await totp.getByTestId("totp-qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    await totp.getByLabel("Authenticator code").fill(await generate({ secret }));
    await shot(page, "51-demo-totp-setup");
    await totp.getByRole("button", { name: "Turn on" }).click();
    await totp.getByText("On: sign-ins by email also ask for a code from your app.").waitFor();

    // Google: linked in a pop-up, listed, then unlinked.
    const providers = page.getByTestId("providers");
    const popup = page.waitForEvent("popup");
    await providers.getByRole("button", { name: "Link Google" }).click();
    await (await popup).locator('button.user[data-sub="alan"]').click();
    await providers.getByRole("listitem").filter({ hasText: "Google" }).waitFor();
    expect(await providers.getByRole("button", { name: "Link Google" }).count()).toBe(0);
    await shot(page, "52-demo-account");
    expect(await providers.getByText("No provider linked.").count()).toBe(0);
    await providers.getByRole("button", { name: "Remove" }).click();
    await providers.getByText("No provider linked.").waitFor();

    await passkeys.getByRole("button", { name: "Remove" }).click();
    await passkeys.getByText("No passkey yet.").waitFor();
    await totp.getByRole("button", { name: "Turn off" }).click();
    await totp.getByText("Off: add a second step to email sign-ins.").waitFor();

    // The security activity lists each of those changes, newest first, as the service recorded them.
    const trail = page.getByTestId("audit-trail");
    await trail.getByRole("heading", { name: "Security activity" }).waitFor();
    await trail.locator('li[data-event="mfa.removed"]').waitFor();
    const events = await trail.locator("li").evaluateAll((items) => items.map((li) => li.dataset.event));
    expect(events.slice(0, 8)).toEqual([
      "mfa.removed",
      "passkey.removed",
      "oauth.unlinked",
      "oauth.linked",
      "mfa.enabled",
      "mfa.requested",
      "passkey.added",
      "user.signin",
    ]);
    await trail.getByText("Social sign-in linked").waitFor();
    expect(await trail.locator('li[data-event="oauth.linked"]').textContent()).toContain("google");
    await trail.getByText("Account created").waitFor();
    await shot(page, "54-demo-security-activity");
  });

  it("changes the email with a code to the new address, and never removes the last way in", async () => {
    const fresh = await s.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await fresh.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${s.hostOrigin}/`);
    await page.getByRole("button", { name: "Sign in" }).first().click();
    const oldEmail = "email-change@example.com";
    await dialog(page).getByRole("textbox").fill(oldEmail);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await typeOtp(page, await s.otpCode(oldEmail));
    await dialog(page).getByRole("button", { name: "Skip" }).click();
    await dialog(page).waitFor({ state: "detached" });

    const email = page.getByTestId("email");
    await email.getByTestId("email-current").getByText(oldEmail).waitFor();
    // Only email: turning it off is refused with the service's reason.
    await email.getByRole("button", { name: "Stop signing in by email" }).click();
    await page.getByText("This is the last way to sign in to this account; add another first").waitFor();

    const newEmail = "email-changed@example.com";
    await email.getByRole("button", { name: "Change email" }).click();
    await email.getByLabel("New email").fill(newEmail);
    await email.getByRole("button", { name: "Send code" }).click();
    await email.getByText(`Code sent to ${newEmail}`).waitFor();
    await email.getByLabel("Code").fill(await s.otpCode(newEmail));
    await email.getByRole("button", { name: "Confirm" }).click();
    await email.getByTestId("email-current").getByText(newEmail).waitFor();
    await shot(page, "53-demo-email-changed");
    await fresh.close();
  });

  it("offers the social buttons by pop-up or by redirect; in redirect mode the account page links by redirect too", async () => {
    const fresh = await s.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await fresh.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${s.hostOrigin}/`);
    await page.getByRole("radio", { name: "Redirect" }).check();
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await dialog(page).getByRole("button", { name: "Continue with Google" }).click();
    await page.waitForURL((url) => !url.href.startsWith(s.hostOrigin));
    await page.locator('button.user[data-sub="ada"]').click();
    await page.waitForURL((url) => url.href.startsWith(s.hostOrigin));
    await page.getByTestId("evm-address").waitFor();

    // Link Auth0 from the account page: the page leaves for the provider and is linked on its return.
    const providers = page.getByTestId("providers");
    await providers.getByRole("listitem").filter({ hasText: "Google" }).waitFor();
    await providers.getByRole("button", { name: "Link Auth0" }).click();
    await page.waitForURL((url) => !url.href.startsWith(s.hostOrigin));
    await page.locator('button.user[data-sub="ada"]').click();
    await page.waitForURL((url) => url.href.startsWith(s.hostOrigin));
    await providers.getByRole("listitem").filter({ hasText: "Auth0" }).waitFor();
    expect(await providers.getByRole("listitem").count()).toBe(2);
    expect(new URL(page.url()).searchParams.has("idToken")).toBe(false);
    await fresh.close();
  });
});
