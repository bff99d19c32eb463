import type { BrowserContext, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./helpers/stack";

// The modal's small promises (spec §2, §4, §5, §9) in the e2e host page against the real service: the
// floating mail icon, the magic-link Resend ('Done!', 2 s), 'Verifying...' and Resend disabled while a
// code is checked, the submit button disabled while the email is sent, a submit of an invalid address
// blocked by the field's validator, arrow keys and Backspace in the code boxes, and the 60vh cap on the content at a phone's size. Slow answers are made by holding the real
// request in the browser until the test lets it go.
let s: Stack;
let context: BrowserContext;
beforeAll(async () => {
  s = await startStack("host");
  context = await s.browser.newContext({ viewport: { width: 900, height: 760 } });
}, 300_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

async function open(ui: object = {}, extra = "", ctx = context): Promise<Page> {
  const page = await ctx.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/?ui=${encodeURIComponent(JSON.stringify(ui))}${extra}`);
  await page.getByTestId("status").filter({ hasNotText: "INITIALIZING" }).waitFor();
  return page;
}

const dialog = (page: Page) => page.getByRole("dialog");

async function openModal(page: Page) {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await dialog(page).waitFor();
}

/**
 * Holds the page's next request to the service path matching `path` until `release()`; `held` resolves
 * once one is being held.
 */
async function holdNext(page: Page, path: RegExp) {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  let onHeld: () => void = () => {};
  const held = new Promise<void>((r) => {
    onHeld = r;
  });
  let taken = false;
  let continued: Promise<void> = Promise.resolve();
  const matcher = (url: URL) => url.href.startsWith(s.serviceUrl) && path.test(url.pathname);
  const handler = async (route: Route) => {
    if (taken || route.request().method() !== "POST") return route.fallback();
    taken = true;
    onHeld();
    continued = released.then(() => route.continue());
    await continued;
  };
  await page.route(matcher, handler);
  return {
    held,
    release: async () => {
      release();
      await continued;
      await page.unroute(matcher, handler);
    },
  };
}

describe("email_verify (magic link)", () => {
  it("the mail icon floats; Resend mails a new link, shows 'Done!' for 2 s, then 'Resend' again", async () => {
    const email = "resend-link@example.com";
    const page = await open({}, "&app=ml");
    await openModal(page);
    const first = s.mailCount(email);
    await dialog(page).getByRole("textbox").fill(email);
    const submit = dialog(page).getByRole("button", { name: "Continue", exact: true });
    await expect.poll(() => submit.isEnabled()).toBe(true);
    // Spec §5: the submit button is disabled while the email is being sent (the send is held).
    const send = await holdNext(page, /^\/signer\/v1\/(signup|auth)$/);
    await submit.click();
    await send.held;
    expect(await submit.isDisabled()).toBe(true);
    expect(await dialog(page).locator("button[type=submit] .lk-spinner").count()).toBe(1);
    // A second press does nothing while it is pending.
    await submit.click({ force: true });
    await send.release();
    await dialog(page).getByRole("heading", { name: "Check your email" }).waitFor();
    const firstLink = await s.magicLink(email, first);
    expect(s.mailCount(email)).toBe(first + 1);

    // Spec §2: the animated mail icon.
    const icon = dialog(page).locator("[data-illustration^='mail-']");
    const style = await icon.evaluate((el) => {
      const cs = getComputedStyle(el);
      return {
        float: el.classList.contains("lk-float"),
        name: cs.animationName,
        iterations: cs.animationIterationCount,
        playing: el.getAnimations().some((a) => a.playState === "running"),
      };
    });
    expect(style).toEqual({ float: true, name: "lk-float", iterations: "infinite", playing: true });
    const transforms = new Set<string>();
    for (let i = 0; i < 6; i++) {
      transforms.add(await icon.evaluate((el) => getComputedStyle(el).transform));
      await page.waitForTimeout(200);
    }
    expect(transforms.size).toBeGreaterThan(1);

    // Spec §2 and §4: Resend sends another link, then says 'Done!' for 2 seconds (and cannot be pressed).
    const resend = dialog(page).locator(".lk-footer button.lk-link");
    expect(await resend.textContent()).toBe("Resend");
    const before = s.mailCount(email);
    await resend.click();
    await resend.filter({ hasText: "Done!" }).waitFor();
    const doneAt = Date.now();
    expect(await resend.isDisabled()).toBe(true);
    const secondLink = await s.magicLink(email, before);
    expect(secondLink).not.toBe(firstLink);
    await resend.filter({ hasText: /^Resend$/ }).waitFor({ timeout: 5000 });
    const shown = Date.now() - doneAt;
    expect(shown).toBeGreaterThanOrEqual(1700);
    expect(shown).toBeLessThan(3500);
    expect(await resend.isEnabled()).toBe(true);
    expect(await dialog(page).getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await page.close();
  });
});

describe("the email form (spec §5)", () => {
  it("a submit runs the field's validator and is blocked by it: no code is sent, the error shows", async () => {
    const email = "form-submit@example.com";
    const page = await open();
    await openModal(page);
    const sends: string[] = [];
    page.on("request", (r) => {
      if (r.url().startsWith(s.serviceUrl) && /\/v1\/(lookup|auth|signup)$/.test(new URL(r.url()).pathname))
        sends.push(new URL(r.url()).pathname.split("/").at(-1) as string);
    });
    const field = dialog(page).getByRole("textbox");
    const form = dialog(page).locator("form:has(input[name=email])");
    const alert = dialog(page).getByRole("alert").filter({ hasText: "Must provide a valid email." });
    await field.fill("form-submit@example");
    // The button is disabled for it, so Enter does nothing; a submit made anyway (a script, an extension)
    // goes through the form's validators and stops there.
    await field.press("Enter");
    await form.evaluate((f) => (f as HTMLFormElement).requestSubmit());
    await alert.waitFor();
    expect(await dialog(page).getByRole("heading", { name: "Enter verification code" }).count()).toBe(0);
    expect(sends).toEqual([]);
    expect(s.mailCount(email)).toBe(0);
    // The same form with a valid address submits: the code is sent.
    await field.fill(email);
    await expect.poll(() => alert.count()).toBe(0);
    await form.evaluate((f) => (f as HTMLFormElement).requestSubmit());
    await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
    await expect.poll(() => s.mailCount(email)).toBe(1);
    expect(sends).toEqual(["lookup", "signup"]);
    await page.close();
  });
});

describe("otp_verify", () => {
  it("arrow keys move between the boxes without changing the digits; Backspace clears and moves back", async () => {
    const email = "arrows@example.com";
    const page = await open();
    await openModal(page);
    await dialog(page).getByRole("textbox").fill(email);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    const values = () =>
      dialog(page)
        .locator(".lk-otp input")
        .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    await page.getByLabel("Digit 1 of 6").focus();
    await page.keyboard.type("123", { delay: 20 });
    expect(await focused()).toBe("Digit 4 of 6");
    const moves: [string, string][] = [
      ["ArrowLeft", "Digit 3 of 6"],
      ["ArrowLeft", "Digit 2 of 6"],
      ["ArrowLeft", "Digit 1 of 6"],
      ["ArrowLeft", "Digit 1 of 6"],
      ["ArrowRight", "Digit 2 of 6"],
      ["ArrowRight", "Digit 3 of 6"],
      ["ArrowRight", "Digit 4 of 6"],
      ["ArrowRight", "Digit 5 of 6"],
      ["ArrowRight", "Digit 6 of 6"],
      ["ArrowRight", "Digit 6 of 6"],
    ];
    const seen: string[] = [];
    for (const [key] of moves) {
      await page.keyboard.press(key);
      seen.push((await focused()) as string);
    }
    expect(seen).toEqual(moves.map(([, at]) => at));
    expect(await values()).toEqual(["1", "2", "3", "", "", ""]);
    // Back to the second box and a digit there replaces it, the others stay.
    for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowLeft");
    expect(await focused()).toBe("Digit 2 of 6");
    await page.keyboard.type("9");
    expect(await values()).toEqual(["1", "9", "3", "", "", ""]);
    expect(await focused()).toBe("Digit 3 of 6");

    // Backspace (spec §5): clears the current box and moves back; on an empty box it clears the one before.
    const backspaces: [string | null, string, string[]][] = [
      ["ArrowRight", "Digit 3 of 6", ["1", "9", "", "", "", ""]], // from the empty fourth box
      ["ArrowLeft", "Digit 1 of 6", ["1", "", "", "", "", ""]], // from the second box, holding 9
      [null, "Digit 1 of 6", ["", "", "", "", "", ""]], // the first box stays the first
    ];
    for (const [move, at, digits] of backspaces) {
      if (move) await page.keyboard.press(move);
      await page.keyboard.press("Backspace");
      expect([await focused(), await values()]).toEqual([at, digits]);
    }
    await page.close();
  });

  it("while the code is checked: 'Verifying...', Resend disabled; after success still disabled", async () => {
    const email = "verifying@example.com";
    const page = await open();
    await openModal(page);
    const sent = s.mailCount(email);
    await dialog(page).getByRole("textbox").fill(email);
    const submit = dialog(page).locator("button[type=submit]");
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await submit.click();
    await dialog(page).getByRole("heading", { name: "Enter verification code" }).waitFor();
    const code = await s.otpCode(email, sent);
    const resend = dialog(page).locator(".lk-footer button.lk-link");
    await expect.poll(() => resend.isEnabled()).toBe(true);
    expect(await dialog(page).locator(".lk-status").textContent()).toBe("");

    const check = await holdNext(page, /^\/signer\/v1\/otp$/);
    await page.getByLabel("Digit 1 of 6").focus();
    await page.keyboard.type(code, { delay: 20 });
    await check.held;
    await dialog(page).locator(".lk-status").filter({ hasText: "Verifying..." }).waitFor();
    expect(await dialog(page).getByText("Verifying...", { exact: true }).isVisible()).toBe(true);
    expect(await resend.isDisabled()).toBe(true);
    // Pressing it anyway sends nothing.
    const mailsWhileVerifying = s.mailCount(email);
    await resend.click({ force: true });
    await check.release();
    await dialog(page).getByRole("heading", { name: "Verified!" }).waitFor();
    expect(await resend.isDisabled()).toBe(true);
    expect(await dialog(page).getByText("Verifying...").count()).toBe(0);
    await page
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    expect(s.mailCount(email)).toBe(mailsWhileVerifying);
    await page.close();
  });
});

describe("small screens (spec §2, §9)", () => {
  it("the modal content is capped at 60vh on a phone; the rest scrolls inside it", async () => {
    const phone = await s.browser.newContext({ viewport: { width: 375, height: 560 }, isMobile: true });
    try {
      // A long initial step: every provider in its own section, each after an 'or'.
      const providers = ["google", "apple", "facebook", "twitch", "auth0", "github", "discord"];
      const page = await open(
        {
          sections: [
            [{ type: "email" }],
            ...providers.map((id) => [{ type: "social", authProviderId: id, mode: "popup" }]),
            [{ type: "passkey" }],
          ],
        },
        "",
        phone,
      );
      await openModal(page);
      const measure = () =>
        dialog(page)
          .locator(".lk-content")
          .evaluate((el) => {
            const cs = getComputedStyle(el);
            return {
              maxHeight: cs.maxHeight,
              overflowY: cs.overflowY,
              clientHeight: el.clientHeight,
              scrollHeight: el.scrollHeight,
              viewport: window.innerHeight,
            };
          });
      const m = await measure();
      expect(m.viewport).toBe(560);
      expect(m.maxHeight).toBe(`${0.6 * 560}px`);
      expect(m.overflowY).toBe("auto");
      expect(m.clientHeight).toBeLessThanOrEqual(336);
      expect(m.scrollHeight).toBeGreaterThan(m.clientHeight);
      // The last section is reached by scrolling inside the content, not the page.
      const last = dialog(page)
        .getByRole("button", { name: /passkey/i })
        .first();
      await last.scrollIntoViewIfNeeded();
      expect(await last.isVisible()).toBe(true);
      expect(
        await dialog(page)
          .locator(".lk-content")
          .evaluate((el) => el.scrollTop),
      ).toBeGreaterThan(0);
      // The cap follows the viewport: taller phone, taller cap.
      await page.setViewportSize({ width: 375, height: 800 });
      await expect.poll(async () => (await measure()).maxHeight).toBe("480px");
    } finally {
      await phone.close();
    }
  });
});
