/**
 * (a) A fresh create-vite react-ts app, with the template's own tsconfig (erasableSyntaxOnly,
 * verbatimModuleSyntax, noUnused*), installs the tarballs and builds with its own `npm run build`.
 * (e) Chromium then signs in through that build by email code and signs a message that verifies.
 * (g) The page's initial chunks (the build's manifest: the entry and its static imports) hold no viem,
 * @noble/curves, @hpke/* or ox: those load when the user first signs, not with the modal.
 */
import { readFileSync, writeFileSync } from "node:fs";
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

  it("keeps viem, @noble/curves, @hpke/* and ox out of the initial chunks (the build's manifest)", async () => {
    const out = join(app, "dist-manifest");
    await run("npx", ["vite", "build", "--manifest", "--sourcemap", "--outDir", out, "--emptyOutDir"], app);
    const manifest = JSON.parse(readFileSync(join(out, ".vite/manifest.json"), "utf8")) as Record<
      string,
      { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] }
    >;
    const initial = new Set<string>();
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || initial.has(chunk.file)) return;
      initial.add(chunk.file);
      for (const i of chunk.imports ?? []) visit(i);
    };
    for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
    expect(initial.size).toBeGreaterThan(0);
    // The modules in a chunk are its source map's sources.
    const packages = new Set<string>();
    for (const file of initial) {
      const { sources } = JSON.parse(readFileSync(join(out, `${file}.map`), "utf8")) as { sources: string[] };
      for (const source of sources) {
        const name = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
        if (name) packages.add(name);
      }
    }
    expect(packages).toContain("@latchkey/core");
    expect([...packages].filter((name) => /^(viem|ox|@noble\/curves|@hpke\/.+)$/.test(name))).toEqual([]);
    // Each of them is still in the build, in a chunk loaded on first use.
    expect(Object.values(manifest).some((chunk) => chunk.dynamicImports?.length)).toBe(true);
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
