/**
 * (d) React 18: the same app on react@18 / react-dom@18 builds with Vite, and in Chromium the modal opens
 * with its stylesheet (React 18 has no <style precedence>: the sheet renders in place).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "../test-support/chromium";
import { APP_TSX, PEERS } from "./appSource";
import { installWithTarballs, type RunningService, run, serveStatic, startService } from "./helpers";

describe("a React 18 app", () => {
  let app: string;
  let service: RunningService;
  beforeAll(async () => {
    const work = inject("workDir");
    await run(
      "npm",
      ["create", "--yes", "vite@7", "react18-app", "--", "--template", "react-ts", "--no-interactive"],
      work,
    );
    app = join(work, "react18-app");
    writeFileSync(join(app, "src/App.tsx"), APP_TSX);
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app);
    await installWithTarballs(app, [
      ...PEERS,
      "react@18",
      "react-dom@18",
      "@types/react@18",
      "@types/react-dom@18",
    ]);
    service = await startService(app);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("runs React 18 and builds", async () => {
    const { stdout } = await run("node", ["-e", "console.log(require('react/package.json').version)"], app);
    expect(stdout.trim()).toMatch(/^18\./);
    await run("npm", ["run", "build"], app);
  });

  it("opens the styled modal in Chromium", async () => {
    const site = await serveStatic(
      join(app, "dist"),
      `<script>window.LATCHKEY_CONFIG=${JSON.stringify({ serviceUrl: service.url, apiKey: service.apiKey })}</script>`,
    );
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(site.url);
      await page.getByRole("button", { name: "Sign in with Latchkey" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("heading", { name: "Sign in" }).waitFor();
      // Styled: the modal's card has its own background and rounded corners.
      const card = await dialog.evaluate((el) => {
        const c = getComputedStyle(el.querySelector(".lk-card") ?? el);
        return { radius: c.borderTopLeftRadius, position: getComputedStyle(el).position };
      });
      expect(card.radius).not.toBe("0px");
      expect(await page.locator("style[data-latchkey]").count()).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await site.close();
    }
  });
});
