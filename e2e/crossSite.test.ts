/**
 * What the service's site does to the session, in Chromium with third-party storage partitioning on, as
 * Chrome ships it (test-support/chromium.ts). The e2e host page (e2e/host) is served on three origins:
 *
 * - app A, http://localhost:P: the service (http://127.0.0.1:Q) is on another site, so its auth frame is
 *   a third-party frame and its storage is partitioned by the top-level site, `localhost`;
 * - app A2, http://localhost:P2: another app on app A's site, so in the same partition;
 * - app B, http://127.0.0.1:P: on the service's own site, where the auth frame is first-party.
 *
 * The session (the credential bundle) is in the app's own localStorage; the key that opens it (the
 * target key) in the auth frame's IndexedDB, in the partition of the page's site.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAYWRIGHT_DISABLED_FEATURES_KEPT, sharedChromium } from "../test-support/chromium";
import { devMailbox, startTestService, type TestService } from "../test-support/service";
import { pageDir } from "./helpers/pages";
import { skipPasskeyOffer, typeOtp, watchPageErrors } from "./helpers/stack";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

let dir: string;
let servers: Server[] = [];
let service: TestService;
let mailbox: ReturnType<typeof devMailbox>;
let browser: Browser;
let context: BrowserContext;
let appA: string;
let appA2: string;
let appB: string;

function listen(handler: RequestListener): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "latchkey-cross-site-"));
  let outDir = join(dir, "dist");
  let inject = "";
  const handler: RequestListener = (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    // Probe pages: a frame that writes localStorage, and a page that reads it.
    if (path.startsWith("/probe/")) {
      const frame = new URL(req.url ?? "/", "http://x").searchParams.get("frame") ?? "";
      const body =
        path === "/probe/top"
          ? `<iframe src="${frame}"></iframe>`
          : path === "/probe/write"
            ? `<script>try{localStorage.setItem("probe","written");document.title="written"}catch(e){document.title=e.name}</script>`
            : `<script>document.title=String(localStorage.getItem("probe"))</script>`;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html>${body}`);
      return;
    }
    const file = normalize(join(outDir, path));
    let type = TYPES[extname(file)];
    let body: Buffer;
    try {
      if (!file.startsWith(outDir) || !type || path === "/") throw new Error("index");
      body = readFileSync(file);
    } catch {
      type = TYPES[".html"];
      body = Buffer.from(
        readFileSync(join(outDir, "index.html"), "utf8").replace("<head>", `<head>${inject}`),
      );
    }
    res.writeHead(200, { "content-type": type ?? "text/plain", "cache-control": "no-store" }).end(body);
  };
  const port = await listen(handler);
  const port2 = await listen(handler);
  appA = `http://localhost:${port}`;
  appA2 = `http://localhost:${port2}`;
  appB = `http://127.0.0.1:${port}`;
  service = await startTestService({
    db: join(dir, "latchkey.db"),
    dataDir: dir,
    dev: true,
    devOrigins: [appA, appA2, appB],
  });
  mailbox = devMailbox(service.service);
  inject = `<script>window.LK_E2E=${JSON.stringify({
    serviceUrl: service.url,
    devApiKey: service.devApiKey,
    magicLink: { id: "none", apiKey: "" },
  })}</script>`;
  // The run's one build of the host page (helpers/pages.ts).
  outDir = await pageDir("host", outDir);
  browser = await sharedChromium();
  context = await browser.newContext();
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (browser) await Promise.race([browser.close(), new Promise((r) => setTimeout(r, 15_000))]);
  await service?.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens the host page of `app` and waits for the provider to settle; collects the console's warnings. */
async function open(app: string): Promise<{ page: Page; warnings: string[]; errors: string[] }> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors = watchPageErrors(page);
  const warnings: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "warning") warnings.push(m.text());
  });
  await page.goto(`${app}/`);
  await status(page, /^(CONNECTED|DISCONNECTED)$/);
  return { page, warnings, errors };
}

async function status(page: Page, text: RegExp): Promise<void> {
  await page.getByTestId("status").filter({ hasText: text }).waitFor();
}

async function signIn(page: Page, email: string): Promise<Hex> {
  await page.getByRole("button", { name: "Open sign-in" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox").fill(email);
  const submit = dialog.locator("button[type=submit]");
  await expect.poll(() => submit.isEnabled()).toBe(true);
  const sent = mailbox.count(email);
  await submit.click();
  await dialog.getByRole("heading", { name: "Enter verification code" }).waitFor();
  await typeOtp(page, await mailbox.otpCode(email, sent));
  await status(page, /^CONNECTED$/);
  await skipPasskeyOffer(page);
  return (await page.getByTestId("address").textContent()) as Hex;
}

async function signsFor(page: Page, address: Hex): Promise<boolean> {
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await expect.poll(() => page.getByTestId("signature").textContent()).toMatch(/^0x[0-9a-f]{130}$/);
  const signature = (await page.getByTestId("signature").textContent()) as Hex;
  return verifyMessage({ address, message: "e2e", signature });
}

/**
 * The target key's public key that the auth frame in `page` keeps for the pages of `app` (a database of
 * the frame's IndexedDB per parent origin), as that frame's storage holds it, or null. Read from inside
 * the frame, as the frame itself reads it: the frame sees the storage of `page`'s partition only.
 */
async function frameTargetKey(page: Page, app: string): Promise<string | null> {
  const isAuthFrame = (f: Frame) => f.url().startsWith(`${service.url}/frames/auth`);
  await expect.poll(() => page.frames().some(isAuthFrame)).toBe(true);
  const frame = page.frames().find(isAuthFrame) as Frame;
  return frame.evaluate(
    (name) =>
      new Promise<string | null>((resolve, reject) => {
        const open = indexedDB.open(name, 1);
        open.onupgradeneeded = () => open.result.createObjectStore("keys");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction("keys").objectStore("keys").get("target");
          get.onerror = () => reject(get.error);
          get.onsuccess = () => {
            db.close();
            resolve((get.result as { publicKeyHex?: string } | undefined)?.publicKeyHex ?? null);
          };
        };
      }),
    `latchkey-auth-frame ${app}`,
  );
}

describe("the test browser", () => {
  it("runs with Chrome's third-party storage partitioning: a cross-site frame's storage is kept apart", async () => {
    // Chromium's own command line (chrome://version): ours is the last --disable-features, the one
    // Chromium reads, and it keeps every feature playwright turns off but partitioning.
    const version = await context.newPage();
    await version.goto("chrome://version");
    const args = ((await version.locator("#command_line").textContent()) ?? "").trim().split(/\s+/);
    await version.close();
    const lists = args
      .filter((a) => a.startsWith("--disable-features="))
      .map((a) => a.split("=")[1]?.split(","));
    expect(lists.length).toBe(2);
    const playwrights = lists[0] ?? [];
    expect(playwrights).toContain("ThirdPartyStoragePartitioning");
    expect(lists.at(-1)).toEqual(PLAYWRIGHT_DISABLED_FEATURES_KEPT);
    expect(playwrights.filter((f) => f !== "ThirdPartyStoragePartitioning")).toEqual(
      PLAYWRIGHT_DISABLED_FEATURES_KEPT,
    );

    // The probe: a frame from 127.0.0.1 under a localhost page may write localStorage (its partition)…
    const page = await context.newPage();
    const writer = `${appB}/probe/write`;
    await page.goto(`${appA}/probe/top?frame=${encodeURIComponent(writer)}`);
    const frame = page.frames().find((f) => f.url() === writer);
    await expect.poll(() => frame?.title()).toBe("written");
    expect(await frame?.evaluate(() => localStorage.getItem("probe"))).toBe("written");
    // …which 127.0.0.1's own pages never see.
    await page.goto(`${appB}/probe/read`);
    expect(await page.title()).toBe("null");
    await page.close();
  });
});

describe("the service on another site than the app", () => {
  const email = "cross-site@example.com";
  let address: Hex;
  let keyOfA: string | null;

  it("signs in, signs, and a reload keeps the session (the frame's storage is partitioned, not refused)", async () => {
    const { page, warnings, errors } = await open(appA);
    address = await signIn(page, email);
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await signsFor(page, address)).toBe(true);
    // The frame kept its key in IndexedDB: the provider does not warn that a reload signs out.
    expect(warnings.filter((w) => w.includes("[latchkey]"))).toEqual([]);
    keyOfA = await frameTargetKey(page, appA);
    expect(keyOfA).toMatch(/^04[0-9a-f]{128}$/);

    await page.reload();
    await status(page, /^CONNECTED$/);
    expect(await page.getByTestId("address").textContent()).toBe(address);
    expect(await signsFor(page, address)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a page on another site sees none of it: the service's frame there has its own storage", async () => {
    const { page } = await open(appB);
    await status(page, /^DISCONNECTED$/);
    expect(await page.getByTestId("address").count()).toBe(0);
    // The same service, the same frame origin, first-party here: app A's keys are in another partition.
    expect(await frameTargetKey(page, appA)).toBeNull();
    // The same person signing in here is the same user (one account on the service), in a session of its own.
    expect(await signIn(page, email)).toBe(address);
    const keyOfB = await frameTargetKey(page, appB);
    expect(keyOfB).toMatch(/^04[0-9a-f]{128}$/);
    expect(keyOfB).not.toBe(keyOfA);
    // Signing out here deletes this app's key only: app A is still signed in after a reload.
    await page.getByRole("button", { name: "Log out" }).click();
    await status(page, /^DISCONNECTED$/);
    expect(await frameTargetKey(page, appB)).toBeNull();
    await page.close();

    const again = await open(appA);
    await status(again.page, /^CONNECTED$/);
    expect(await again.page.getByTestId("address").textContent()).toBe(address);
    expect(await frameTargetKey(again.page, appA)).toBe(keyOfA);
    await again.page.close();
  });

  it("another app on app A's site shares the frame's storage, and signing out there leaves app A signed in", async () => {
    const { page } = await open(appA2);
    // Its own localStorage: nobody is signed in here…
    await status(page, /^DISCONNECTED$/);
    // …while the service's frame, under the same top-level site, has app A's key in its storage.
    expect(await frameTargetKey(page, appA)).toBe(keyOfA);
    expect(await frameTargetKey(page, appA2)).toBeNull();
    const other = await signIn(page, "other-app@example.com");
    expect(other).not.toBe(address);
    expect(await frameTargetKey(page, appA2)).toMatch(/^04[0-9a-f]{128}$/);
    // Signing out deletes app A2's key, never app A's.
    await page.getByRole("button", { name: "Log out" }).click();
    await status(page, /^DISCONNECTED$/);
    expect(await frameTargetKey(page, appA2)).toBeNull();
    expect(await frameTargetKey(page, appA)).toBe(keyOfA);
    await page.close();

    const again = await open(appA);
    await status(again.page, /^CONNECTED$/);
    expect(await again.page.getByTestId("address").textContent()).toBe(address);
    expect(await signsFor(again.page, address)).toBe(true);
    await again.page.close();
  });
});
