/**
 * What the developer sees in a development build of their app (`process.env.NODE_ENV !== "production"`):
 * under the user's 'Sign-in is unavailable' message, the cause and its fix in a small monospace line. And
 * the dialog's stacking: above other wallet modals by default, the theme's `zIndex` when given.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unusedPort } from "../test-support/chromium";
import { type Stack, startStack } from "./helpers/stack";

let s: Stack;
let context: BrowserContext;
beforeAll(async () => {
  s = await startStack("host", { nodeEnv: "development" });
  context = await s.browser.newContext();
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

async function openWith(query: string, before?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${s.hostOrigin}/?${query}`);
  await before?.(page);
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await page.getByRole("dialog").waitFor();
  return page;
}

const USER_TEXT = "We can't reach the sign-in service right now. Please try again later.";

describe("a development build", () => {
  it("a wrong API key: the user's message, and beside it the cause for the developer", async () => {
    const page = await openWith("key=lk_not-a-real-key-at-all-0000");
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Sign-in is unavailable" }).waitFor();
    await dialog.getByText(USER_TEXT).waitFor();
    const note = dialog.getByTestId("lk-developer-note");
    await note.waitFor();
    const text = await note.textContent();
    expect(text).toContain("For the developer:");
    expect(text).toContain(`The Latchkey service at ${s.serviceUrl} refused the API key`);
    expect(text).toContain("Unknown or revoked app API key");
    expect(await note.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono|Menlo|Consolas/);
    await page.close();
  });

  it("nothing answering at the URL: the developer line says so", async () => {
    const service = `http://127.0.0.1:${await unusedPort()}`;
    const page = await openWith(`service=${encodeURIComponent(service)}`);
    const note = page.getByRole("dialog").getByTestId("lk-developer-note");
    await note.waitFor();
    expect(await note.textContent()).toContain(
      `Nothing answers at ${service}: is the Latchkey service running`,
    );
    await page.getByRole("dialog").getByText(USER_TEXT).waitFor();
    await page.close();
  });

  it("a working service: no developer line", async () => {
    const page = await openWith("");
    await page.getByRole("dialog").getByRole("textbox").waitFor();
    expect(await page.getByTestId("lk-developer-note").count()).toBe(0);
    await page.close();
  });
});

describe("stacking", () => {
  const overlayZ = (page: Page) =>
    page.evaluate(() => getComputedStyle(document.querySelector(".lk-overlay") as Element).zIndex);

  it("above another wallet's modal (RainbowKit's z-index 2147483646) by default", async () => {
    const page = await openWith("", async (p) => {
      await p.evaluate(() => {
        const other = document.createElement("div");
        other.id = "other-wallet-modal";
        other.style.cssText = "position:fixed;inset:0;z-index:2147483646;background:rgba(0,0,0,.2)";
        // Pointer events pass through to the page's button, as under a real wallet's open portal's gap.
        other.style.pointerEvents = "none";
        document.body.append(other);
      });
    });
    await page.getByRole("dialog").getByRole("textbox").waitFor();
    expect(Number(await overlayZ(page))).toBeGreaterThanOrEqual(2147483647);
    const onTop = await page.evaluate(() => {
      const card = document.querySelector(".lk-card") as Element;
      const r = card.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && card.contains(hit);
    });
    expect(onTop).toBe(true);
    await page.close();
  });

  it("the theme's zIndex", async () => {
    const page = await openWith(`ui=${encodeURIComponent(JSON.stringify({ theme: { zIndex: 1234 } }))}`);
    await page.getByRole("dialog").getByRole("textbox").waitFor();
    expect(await overlayZ(page)).toBe("1234");
    await page.close();
  });
});
