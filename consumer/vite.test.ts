/**
 * (a) A fresh create-vite react-ts app, with the template's own tsconfig (erasableSyntaxOnly,
 * verbatimModuleSyntax, noUnused*), installs the tarballs and builds with its own `npm run build`.
 * (e) Chromium then signs in through that build by email code and signs a message that verifies.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "../test-support/chromium";
import { APP_TSX, PEERS } from "./appSource";
import { installWithTarballs, type RunningService, run, serveStatic, startService } from "./helpers";

describe("a create-vite react-ts app", () => {
  let app: string;
  let service: RunningService;
  beforeAll(async () => {
    const work = inject("workDir");
    await run(
      "npm",
      ["create", "--yes", "vite@7", "vite-app", "--", "--template", "react-ts", "--no-interactive"],
      work,
    );
    app = join(work, "vite-app");
    writeFileSync(join(app, "src/App.tsx"), APP_TSX);
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app);
    await installWithTarballs(app, PEERS);
    service = await startService(app);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("builds with the template's own npm run build (tsc -b && vite build)", async () => {
    const { stdout } = await run("npm", ["run", "build"], app);
    expect(stdout).toContain("built in");
  });

  it("signs in through the built app in Chromium and signs a message that verifies", async () => {
    const site = await serveStatic(
      join(app, "dist"),
      `<script>window.LATCHKEY_CONFIG=${JSON.stringify({ serviceUrl: service.url, apiKey: service.apiKey })}</script>`,
    );
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(site.url);
      await page.getByRole("button", { name: "Sign in with Latchkey" }).click();
      const dialog = page.getByRole("dialog");
      const email = "vite-consumer@example.com";
      await dialog.getByRole("textbox").fill(email);
      const submit = dialog.locator("button[type=submit]");
      await expect.poll(() => submit.isEnabled()).toBe(true);
      await submit.click();
      const code = await service.code(email);
      await page.getByLabel("Digit 1 of 6").focus();
      await page.keyboard.type(code);
      const address = (await page.getByTestId("address").textContent()) as `0x${string}`;
      expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      await page.getByRole("button", { name: "Sign" }).click();
      await expect.poll(() => page.getByTestId("signature").textContent()).toMatch(/^0x[0-9a-f]{130}$/);
      const signature = (await page.getByTestId("signature").textContent()) as `0x${string}`;
      expect(await verifyMessage({ address, message: "consumer", signature })).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await site.close();
    }
  });
});
