/**
 * First contact: a page whose service is down, or whose API key the service refuses, learns it as soon as
 * the provider mounts — the developer reads the cause in the console, the user a short message in the
 * modal — instead of a code screen that never works.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unusedPort } from "../test-support/chromium";
import { type Stack, startStack } from "./helpers/stack";

let s: Stack;
let context: BrowserContext;
beforeAll(async () => {
  s = await startStack("host");
  context = await s.browser.newContext();
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

async function openWith(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(`${s.hostOrigin}/?${query}`);
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await page.getByRole("dialog").waitFor();
  return { page, errors };
}

describe("first contact", () => {
  it("a service that is not running: 'Sign-in is unavailable', and the cause in the console", async () => {
    const service = `http://127.0.0.1:${await unusedPort()}`;
    const { page, errors } = await openWith(`service=${encodeURIComponent(service)}`);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Sign-in is unavailable" }).waitFor();
    await dialog.getByText("We can't reach the sign-in service right now. Please try again later.").waitFor();
    expect(await dialog.getByTestId("lk-service-unavailable").getAttribute("data-code")).toBe(
      "SERVICE_UNREACHABLE",
    );
    // No email form to type into: nothing the user does here could work.
    expect(await dialog.getByRole("textbox").count()).toBe(0);
    await expect
      .poll(() => errors.join("\n"))
      .toContain(`[latchkey] Nothing answers at ${service}: is the Latchkey service running`);
    await page.close();
  });

  it("an API key the service does not know: the same message, the key named in the console; Try again re-checks", async () => {
    const { page, errors } = await openWith("key=lk_not-a-real-key-at-all-0000");
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Sign-in is unavailable" }).waitFor();
    expect(await dialog.getByTestId("lk-service-unavailable").getAttribute("data-code")).toBe(
      "INVALID_API_KEY",
    );
    await expect.poll(() => errors.join("\n")).toContain("refused the API key");
    await dialog.getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => errors.filter((e) => e.includes("refused the API key")).length).toBe(2);
    await dialog.getByRole("heading", { name: "Sign-in is unavailable" }).waitFor();
    await page.close();
  });

  it("a working service shows the sign-in methods", async () => {
    const { page, errors } = await openWith("");
    await page.getByRole("dialog").getByRole("textbox").waitFor();
    expect(await page.getByTestId("lk-service-unavailable").count()).toBe(0);
    expect(errors.filter((e) => e.includes("[latchkey]"))).toEqual([]);
    await page.close();
  });
});
