import { generate } from "otplib";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addVirtualAuthenticator,
  type VirtualCredential,
} from "../packages/core/test/browser/virtualAuthenticator";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// Passkeys and the authenticator app in the modal, in Chromium with the CDP virtual authenticator. The
// host app and the service are on http://localhost:PORT: the dev app's relying party is `localhost`.
let s: Stack;
beforeAll(async () => {
  s = await startStack("host", { hostName: "localhost" });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  credentials(): Promise<VirtualCredential[]>;
  /** navigator.credentials.create / get calls the page made: one call is one prompt. */
  prompts(): Promise<{ create: number; get: number }>;
  close(): Promise<void>;
}

/**
 * A fresh browser context with a virtual platform authenticator (optionally holding passkeys). `clock`:
 * the pages' timers on Playwright's clock (running in real time until a test pauses it).
 */
async function openTab(
  ui: object = {},
  holding: VirtualCredential[] = [],
  extra = "",
  { clock = false } = {},
): Promise<Tab> {
  const context = await s.browser.newContext({ viewport: { width: 900, height: 800 } });
  if (clock) await context.clock.install();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  const authenticator = await addVirtualAuthenticator(context, page, holding);
  await page.goto(`${s.hostOrigin}/?ui=${encodeURIComponent(JSON.stringify(ui))}${extra}`);
  await page.getByTestId("status").filter({ hasNotText: "INITIALIZING" }).waitFor();
  return {
    context,
    page,
    ...authenticator,
    close: () => context.close(),
  };
}

const dialog = (page: Page) => page.getByRole("dialog");
const status = (page: Page) => page.getByTestId("status");

async function openModal(page: Page) {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).waitFor();
}

async function signMessage(page: Page): Promise<void> {
  const address = (await page.getByTestId("address").textContent()) as Hex;
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByTestId("signature").filter({ hasText: "0x" }).waitFor();
  const signature = (await page.getByTestId("signature").textContent()) as Hex;
  expect(await verifyMessage({ address, message: "e2e", signature })).toBe(true);
}

/** Email sign-in (the dev app is OTP mode) up to the connected host page, or to the TOTP step. */
async function emailCode(page: Page, email: string): Promise<void> {
  const sent = s.mailCount(email);
  await dialog(page).getByRole("textbox").fill(email);
  const submit = dialog(page).locator("button[type=submit]");
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
  await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
  await typeOtp(page, await s.otpCode(email, sent));
}

let passkey: VirtualCredential;
let passkeyAddress: string;

describe("passkey sign-up and sign-in", () => {
  it("signs up with a new passkey from the modal ('Create a passkey'), in one prompt", async () => {
    const tab = await openTab({ supportUrl: "https://example.com/support" });
    try {
      await openModal(tab.page);
      await shot(tab.page, "30-passkey-initial");
      await dialog(tab.page).getByRole("button", { name: "Create a passkey" }).click();
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await dialog(tab.page).waitFor({ state: "detached" });
      expect(await tab.page.evaluate(() => window.lkSuccess)).toBe(1);
      expect(await tab.prompts()).toEqual({ create: 1, get: 0 });
      const credentials = await tab.credentials();
      expect(credentials).toHaveLength(1);
      passkey = credentials[0] as VirtualCredential;
      passkeyAddress = (await tab.page.getByTestId("address").textContent()) as string;
      expect(passkeyAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    } finally {
      await tab.close();
    }
  });

  it("signs in with that passkey in a fresh browser ('I have a passkey'), then signs without a second prompt", async () => {
    const tab = await openTab({}, [passkey]);
    try {
      await openModal(tab.page);
      await dialog(tab.page).getByRole("button", { name: "I have a passkey" }).click();
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await dialog(tab.page).waitFor({ state: "detached" });
      expect(await tab.page.getByTestId("address").textContent()).toBe(passkeyAddress);
      expect(await tab.prompts()).toEqual({ create: 0, get: 1 });
      await signMessage(tab.page);
      expect(await tab.prompts()).toEqual({ create: 0, get: 1 });
      await shot(tab.page, "31-passkey-signed-in");
      passkey = (await tab.credentials())[0] as VirtualCredential;
    } finally {
      await tab.close();
    }
  });

  it("passkey_verify waits for the prompt, shows the support link, and Cancel returns to initial", async () => {
    const tab = await openTab({ supportUrl: "https://example.com/support" }, [passkey]);
    try {
      // Nobody answers the prompt.
      await tab.cdp.send("WebAuthn.setAutomaticPresenceSimulation", {
        authenticatorId: tab.authenticatorId,
        enabled: false,
      });
      await openModal(tab.page);
      await dialog(tab.page).getByRole("button", { name: "I have a passkey" }).click();
      await dialog(tab.page).getByRole("heading", { name: "Continue with passkey" }).waitFor();
      await expect.poll(() => tab.prompts().then((p) => p.get)).toBe(1);
      expect(await status(tab.page).textContent()).toBe("AUTHENTICATING_PASSKEY");
      const support = dialog(tab.page).getByRole("link", { name: "Contact support" });
      expect(await support.getAttribute("href")).toBe("https://example.com/support");
      expect(await dialog(tab.page).textContent()).toContain("Need help? Contact support");
      expect(await dialog(tab.page).getByRole("button", { name: "Back" }).count()).toBe(1);
      await shot(tab.page, "32-passkey-verify");
      await dialog(tab.page).getByRole("button", { name: "Cancel" }).click();
      await dialog(tab.page).getByRole("heading", { name: "Sign in" }).waitFor();
      // The prompt was aborted: the signer is back to DISCONNECTED, and no error is shown.
      await status(tab.page)
        .filter({ hasText: /^DISCONNECTED$/ })
        .waitFor();
      expect(await dialog(tab.page).getByRole("alert").count()).toBe(0);
    } finally {
      await tab.close();
    }
  });

  it("a refused prompt (user verification fails) returns to initial; trying again signs in", async () => {
    const tab = await openTab({}, [passkey]);
    try {
      await tab.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: tab.authenticatorId,
        isUserVerified: false,
      });
      await openModal(tab.page);
      await dialog(tab.page).getByRole("button", { name: "I have a passkey" }).click();
      await expect.poll(() => tab.prompts().then((p) => p.get)).toBe(1);
      await dialog(tab.page).getByRole("heading", { name: "Sign in" }).waitFor();
      await status(tab.page)
        .filter({ hasText: /^DISCONNECTED$/ })
        .waitFor();
      expect(await dialog(tab.page).getByTestId("lk-connection-error").count()).toBe(0);
      await tab.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: tab.authenticatorId,
        isUserVerified: true,
      });
      await dialog(tab.page).getByRole("button", { name: "I have a passkey" }).click();
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      expect(await tab.page.getByTestId("address").textContent()).toBe(passkeyAddress);
      passkey = (await tab.credentials())[0] as VirtualCredential;
    } finally {
      await tab.close();
    }
  });

  it("a passkey the service does not know shows the passkey error view: Try again, Use another method", async () => {
    const tab = await openTab();
    try {
      // A passkey for this site made outside the service: it signs, but no account holds it.
      await tab.page.evaluate(async () => {
        await navigator.credentials.create({
          publicKey: {
            rp: { id: "localhost", name: "stranger" },
            user: { id: crypto.getRandomValues(new Uint8Array(16)), name: "nobody", displayName: "nobody" },
            challenge: crypto.getRandomValues(new Uint8Array(32)),
            pubKeyCredParams: [{ type: "public-key", alg: -7 }],
            authenticatorSelection: { residentKey: "required", userVerification: "required" },
          },
        });
      });
      await openModal(tab.page);
      await dialog(tab.page).getByRole("button", { name: "I have a passkey" }).click();
      const view = dialog(tab.page).getByTestId("lk-connection-error");
      await view.waitFor();
      expect(await view.getByRole("heading").textContent()).toBe("Connection failed");
      expect(await view.getByRole("alert").textContent()).toBe(
        "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
      );
      expect(await view.getByRole("button").allTextContents()).toEqual(["Try again", "Use another method"]);
      await shot(tab.page, "33-passkey-error");
      await view.getByRole("button", { name: "Try again" }).click();
      await expect.poll(() => tab.prompts().then((p) => p.get)).toBe(2);
      await view.waitFor();
      await view.getByRole("button", { name: "Use another method" }).click();
      await dialog(tab.page).getByRole("heading", { name: "Sign in" }).waitFor();
      expect(await status(tab.page).textContent()).toBe("DISCONNECTED");
    } finally {
      await tab.close();
    }
  });
});

describe("add a passkey on sign-up", () => {
  const ui = { addPasskeyOnSignup: true, supportUrl: "https://example.com/support" };

  it("opens at passkey_create once after an email sign-up; Skip completes and is tracked", async () => {
    const tab = await openTab(ui);
    try {
      await openModal(tab.page);
      await emailCode(tab.page, "skip-passkey@example.com");
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      const create = dialog(tab.page).getByRole("heading", { name: "Add a passkey" });
      await create.waitFor();
      const text = await dialog(tab.page).textContent();
      expect(text).toContain("Simpler login");
      expect(text).toContain("Enhanced security");
      expect(text).toContain("Need help? Contact support");
      expect(await dialog(tab.page).getByRole("button").allTextContents()).toEqual([
        "",
        "",
        "Continue",
        "Skip",
      ]);
      await shot(tab.page, "34-passkey-create");
      const successes = await tab.page.evaluate(() => window.lkSuccess);
      await dialog(tab.page).getByRole("button", { name: "Skip" }).click();
      await dialog(tab.page).waitFor({ state: "detached" });
      expect(await tab.page.evaluate(() => window.lkEvents)).toEqual(["add_passkey_on_signup_skip"]);
      expect(await tab.page.evaluate(() => window.lkSuccess)).toBe(successes + 1);
      expect(await tab.prompts()).toEqual({ create: 0, get: 0 });
      // Once per session: signing a message or reopening does not bring it back.
      await signMessage(tab.page);
      await tab.page.waitForTimeout(300);
      expect(await tab.page.getByTestId("modal-open").textContent()).toBe("false");

      // A returning user is not offered one.
      await tab.page.getByRole("button", { name: "Log out" }).click();
      await status(tab.page)
        .filter({ hasText: /^DISCONNECTED$/ })
        .waitFor();
      await openModal(tab.page);
      await emailCode(tab.page, "skip-passkey@example.com");
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await dialog(tab.page).waitFor({ state: "detached" });
      await tab.page.waitForTimeout(300);
      expect(await tab.page.getByTestId("modal-open").textContent()).toBe("false");
    } finally {
      await tab.close();
    }
  });

  it("Continue adds a passkey: 'Passkey added!', complete after 5 s, tracked; the passkey then signs in", async () => {
    const tab = await openTab(ui, [], "", { clock: true });
    let added: VirtualCredential;
    let address: string;
    try {
      await openModal(tab.page);
      await emailCode(tab.page, "add-passkey@example.com");
      await dialog(tab.page).getByRole("heading", { name: "Add a passkey" }).waitFor();
      const successes = await tab.page.evaluate(() => window.lkSuccess);
      // The page's time stops before Continue: the 5 s from "Passkey added!" to complete are then the
      // page's clock, run by hand, not 5 s of the test's wall (nothing else in the add waits on a timer).
      await tab.page.clock.pauseAt(Date.now() + 1000);
      await dialog(tab.page).getByRole("button", { name: "Continue" }).click();
      await dialog(tab.page).getByRole("heading", { name: "Passkey added!" }).waitFor();
      expect(await dialog(tab.page).textContent()).toContain(
        "You can use this passkey to sign in next time.",
      );
      await shot(tab.page, "35-passkey-added");
      expect(await tab.page.evaluate(() => window.lkEvents)).toEqual(["add_passkey_on_signup_success"]);
      // Still there 1 ms before 5 s, complete at 5 s (spec §4 "Passkey").
      await tab.page.clock.runFor(4999);
      expect(await dialog(tab.page).getByRole("heading", { name: "Passkey added!" }).isVisible()).toBe(true);
      expect(await tab.page.evaluate(() => window.lkSuccess)).toBe(successes);
      await tab.page.clock.runFor(1);
      // With the clock still stopped: only the 5 s timer can have completed it.
      await expect.poll(() => tab.page.evaluate(() => window.lkSuccess)).toBe(successes + 1);
      await tab.page.clock.resume();
      await dialog(tab.page).waitFor({ state: "detached" });
      const passkeys = await tab.page.evaluate(() => window.lkSigner.getPasskeyStatus());
      expect(passkeys.isPasskeyAdded).toBe(true);
      expect(passkeys.passkeys[0]?.name).toMatch(/^passkey-\d+$/);
      added = (await tab.credentials())[0] as VirtualCredential;
      address = (await tab.page.getByTestId("address").textContent()) as string;
    } finally {
      await tab.close();
    }
    const next = await openTab({}, [added]);
    try {
      await openModal(next.page);
      await dialog(next.page).getByRole("button", { name: "I have a passkey" }).click();
      await status(next.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      expect(await next.page.getByTestId("address").textContent()).toBe(address);
    } finally {
      await next.close();
    }
  });

  it("a failed add stays on passkey_create with 'Failed to add passkey'; Skip still completes", async () => {
    const tab = await openTab(ui);
    try {
      await openModal(tab.page);
      await emailCode(tab.page, "fail-passkey@example.com");
      await dialog(tab.page).getByRole("heading", { name: "Add a passkey" }).waitFor();
      await tab.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: tab.authenticatorId,
        isUserVerified: false,
      });
      await dialog(tab.page).getByRole("button", { name: "Continue" }).click();
      const view = dialog(tab.page).getByTestId("lk-connection-error");
      await view.waitFor();
      expect(await view.getByRole("heading").textContent()).toBe("Failed to add passkey");
      expect(await view.getByRole("button").allTextContents()).toEqual(["Try again", "Skip"]);
      expect(await dialog(tab.page).getAttribute("aria-label")).toBe("Sign in");
      await shot(tab.page, "36-passkey-add-failed");
      // Still signed in: the add-passkey failure does not disconnect.
      expect(await status(tab.page).textContent()).toBe("CONNECTED");
      await view.getByRole("button", { name: "Skip" }).click();
      await dialog(tab.page).waitFor({ state: "detached" });
      expect(await tab.page.evaluate(() => window.lkEvents)).toEqual(["add_passkey_on_signup_skip"]);
      expect(await status(tab.page).textContent()).toBe("CONNECTED");
    } finally {
      await tab.close();
    }
  });

  it("Close from passkey_create ends in complete", async () => {
    const tab = await openTab(ui);
    try {
      await openModal(tab.page);
      await emailCode(tab.page, "close-passkey@example.com");
      await dialog(tab.page).getByRole("heading", { name: "Add a passkey" }).waitFor();
      const successes = await tab.page.evaluate(() => window.lkSuccess);
      await dialog(tab.page).getByRole("button", { name: "Close" }).click();
      await dialog(tab.page).waitFor({ state: "detached" });
      expect(await tab.page.evaluate(() => window.lkSuccess)).toBe(successes + 1);
    } finally {
      await tab.close();
    }
  });
});

describe("authenticator app (TOTP)", () => {
  /** Turns TOTP on for the signed-in user; answers the secret. Codes use steps -1, 0, +1 (each once). */
  async function enableTotp(page: Page): Promise<string> {
    const { multiFactorId, multiFactorTotpUrl } = await page.evaluate(() => window.lkSigner.addMfa());
    const secret = new URL(multiFactorTotpUrl).searchParams.get("secret") as string;
    const code = await totp(secret, -1);
    await page.evaluate((p) => window.lkSigner.verifyMfa(p), { multiFactorId, multiFactorCode: code });
    return secret;
  }
  const totp = (secret: string, step = 0) =>
    generate({ secret, epoch: Math.floor(Date.now() / 1000) + step * 30 });

  it("email code, then 'Enter authenticator app code': a wrong code shows the error, the right one connects", async () => {
    const email = "totp-otp@example.com";
    const tab = await openTab();
    try {
      await openModal(tab.page);
      await emailCode(tab.page, email);
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      const secret = await enableTotp(tab.page);
      await tab.page.getByRole("button", { name: "Log out" }).click();
      await status(tab.page)
        .filter({ hasText: /^DISCONNECTED$/ })
        .waitFor();

      await openModal(tab.page);
      await emailCode(tab.page, email);
      await dialog(tab.page).getByRole("heading", { name: "Enter authenticator app code" }).waitFor();
      expect(await status(tab.page).textContent()).toBe("AWAITING_MFA_AUTH");
      expect(await dialog(tab.page).getByRole("button", { name: "Back" }).count()).toBe(1);
      await shot(tab.page, "37-totp-verify");
      const right = await totp(secret);
      await typeOtp(tab.page, right === "000000" ? "111111" : "000000");
      const error = dialog(tab.page).getByRole("alert");
      await error.waitFor();
      expect(await error.textContent()).toBe("The code you entered is incorrect");
      expect(await dialog(tab.page).getByLabel("Digit 1 of 6").inputValue()).toBe("");
      await shot(tab.page, "38-totp-wrong-code");
      await typeOtp(tab.page, right);
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await dialog(tab.page).waitFor({ state: "detached" });
      await signMessage(tab.page);
    } finally {
      await tab.close();
    }
  });

  it("magic link: the authenticator code first, then the link signs in", { timeout: 60_000 }, async () => {
    const email = "totp-link@example.com";
    const tab = await openTab({}, [], "&app=ml");
    const sendLink = async () => {
      const sent = s.mailCount(email);
      await dialog(tab.page).getByRole("textbox").fill(email);
      await expect
        .poll(() => dialog(tab.page).getByRole("button", { name: "Continue" }).isEnabled())
        .toBe(true);
      await dialog(tab.page).getByRole("button", { name: "Continue" }).click();
      return sent;
    };
    const follow = async (sent: number) => {
      await dialog(tab.page).getByRole("heading", { name: "Check your email" }).waitFor();
      const landing = await tab.context.newPage();
      await landing.goto(await s.magicLink(email, sent));
      await landing
        .getByTestId("status")
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
      await landing.close();
      await status(tab.page)
        .filter({ hasText: /^CONNECTED$/ })
        .waitFor();
    };
    try {
      await openModal(tab.page);
      await follow(await sendLink());
      const secret = await enableTotp(tab.page);
      await tab.page.getByRole("button", { name: "Log out" }).click();
      await status(tab.page)
        .filter({ hasText: /^DISCONNECTED$/ })
        .waitFor();

      await openModal(tab.page);
      const sent = await sendLink();
      await dialog(tab.page).getByRole("heading", { name: "Enter authenticator app code" }).waitFor();
      expect(s.mailCount(email)).toBe(sent);
      await typeOtp(tab.page, await totp(secret));
      await follow(sent);
      await dialog(tab.page).waitFor({ state: "detached" });
      await signMessage(tab.page);
    } finally {
      await tab.close();
    }
  });
});
