/**
 * First contact in Chromium: before anyone signs in, `checkConnection()` names what would make sign-in
 * fail — the service down, a URL that is not the service, a page origin no app allows — and a frame
 * refused storage still signs in for the life of the page, saying why the session won't survive a reload.
 */
import type { BrowserContext, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unusedPort } from "../../../test-support/chromium";
import { type Harness, startHarness } from "./browser/harness";
import { mailCount } from "./helpers/service";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

type Check = { ok: boolean; code?: string; message?: string; storage?: string; storageError?: string };

/** Runs checkConnection from `page` with a signer of its own (its own frame id, so the page's stays). */
function check(page: Page, baseUrl: string, apiKey: string): Promise<Check> {
  return page.evaluate(
    async ({ baseUrl, apiKey }) => {
      const { core } = window.lk;
      const signer = core.createSigner({
        baseUrl,
        apiKey,
        keyHolder: core.createIframeKeyHolder({
          frameUrl: `${baseUrl}/frames/auth?appId=dev`,
          iframeId: "check",
        }),
      });
      const result = await signer.checkConnection();
      signer.keyHolder.destroy?.();
      const { ok } = result;
      return result.ok
        ? {
            ok,
            storage: result.storage,
            ...(result.storageError ? { storageError: result.storageError } : {}),
          }
        : { ok, code: result.code, message: result.message };
    },
    { baseUrl, apiKey },
  );
}

describe("checkConnection in Chromium", () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await h.browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
  });

  async function open(origin: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.evaluate(() => window.lk.ready);
    return page;
  }

  it("passes on an allowed page, with the frame's keys in persistent storage", async () => {
    const page = await open(h.hostOrigin);
    expect(await check(page, h.serviceUrl, h.svc.apiKey)).toEqual({ ok: true, storage: "persistent" });
    await page.close();
  });

  it("names a service that is not running", async () => {
    const page = await open(h.hostOrigin);
    const result = await check(page, `http://127.0.0.1:${await unusedPort()}`, h.svc.apiKey);
    expect(result).toMatchObject({ ok: false, code: "SERVICE_UNREACHABLE" });
    expect(result.message).toMatch(
      /^Nothing answers at http:\/\/127\.0\.0\.1:\d+: is the Latchkey service running/,
    );
    await page.close();
  });

  it("names a URL where something else answers", async () => {
    const page = await open(h.hostOrigin);
    // The host app's own server answers every path with its page: not a Latchkey service.
    const result = await check(page, h.hostOrigin, h.svc.apiKey);
    expect(result).toMatchObject({ ok: false, code: "SERVICE_NOT_FOUND" });
    expect(result.message).toContain("not a Latchkey service");
    await page.close();
  });

  it("names a page origin the app does not allow", async () => {
    const page = await open(h.strangerOrigin);
    const result = await check(page, h.serviceUrl, h.svc.apiKey);
    expect(result).toMatchObject({ ok: false, code: "ORIGIN_NOT_ALLOWED" });
    expect(result.message).toContain(`does not allow this page's origin (${h.strangerOrigin})`);
    await page.close();
  });

  it("names an API key the service does not know", async () => {
    const page = await open(h.hostOrigin);
    const result = await check(page, h.serviceUrl, "lk_not-a-real-key-at-all-0000");
    expect(result).toMatchObject({ ok: false, code: "INVALID_API_KEY" });
    await page.close();
  });
});

describe("a frame refused storage", () => {
  let context: BrowserContext;
  const warnings: string[] = [];

  beforeAll(async () => {
    context = await h.browser.newContext();
    // The browser refuses the auth frame IndexedDB, as it does a third-party frame under strict settings.
    await context.addInitScript(() => {
      if (location.pathname !== "/frames/auth") return;
      Object.defineProperty(window, "indexedDB", {
        get() {
          throw new DOMException("The user denied permission to access the database.", "SecurityError");
        },
      });
    });
  });
  afterAll(async () => {
    await context?.close();
  });

  it("still signs in and signs for the life of the page, and says why a reload signs out", async () => {
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    await page.goto(`${h.hostOrigin}/`);
    await page.evaluate(() => window.lk.ready);
    const result = await page.evaluate(() => window.lk.signer.checkConnection());
    expect(result).toMatchObject({ ok: true, storage: "memory" });
    expect(warnings.join("\n")).toContain("the session ends when this page is reloaded");

    const email = "no-storage@example.com";
    const sent = mailCount(h.svc, email);
    await page.evaluate(
      (email) => window.lk.signer.authenticate({ type: "email", email, emailMode: "otp" }),
      email,
    );
    const code = await h.svc.otpCode(email, sent);
    const done = await page.evaluate(
      (otpCode) => window.lk.signer.authenticate({ type: "otp", otpCode }),
      code,
    );
    expect(done.status).toBe("CONNECTED");
    const address = (done.user as { address: Hex }).address;
    const signature = await page.evaluate(() =>
      window.lk.core.toViemAccount(window.lk.signer).signMessage({ message: "still here" }),
    );
    expect(await verifyMessage({ address, message: "still here", signature })).toBe(true);

    await page.reload();
    await page.evaluate(() => window.lk.ready);
    expect(await page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
    await page.close();
  });
});
