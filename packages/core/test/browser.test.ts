import {
  DEFAULT_SESSION_LENGTH_MS,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  toHex,
} from "@latchkey/protocol";
import type { BrowserContext, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./browser/harness";
import { mailCount } from "./helpers/service";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function open(context: BrowserContext, path = "/"): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${h.hostOrigin}${path}`);
  await page.evaluate(() => window.lk.ready);
  return page;
}

const status = (page: Page) => page.evaluate(() => window.lk.signer.status);

async function signIn(page: Page, email: string): Promise<{ address: Hex; orgId: string }> {
  const sent = mailCount(h.svc, email);
  const started = await page.evaluate(
    (email) => window.lk.signer.authenticate({ type: "email", email, emailMode: "otp" }),
    email,
  );
  expect(started.status).toBe("AWAITING_OTP_AUTH");
  const code = await h.svc.otpCode(email, sent);
  const done = await page.evaluate(
    (otpCode) => window.lk.signer.authenticate({ type: "otp", otpCode }),
    code,
  );
  expect(done.status).toBe("CONNECTED");
  return done.user as { address: Hex; orgId: string };
}

async function signMessage(page: Page, message: string): Promise<Hex> {
  return page.evaluate(
    (message) => window.lk.core.toViemAccount(window.lk.signer).signMessage({ message }),
    message,
  );
}

describe("iframe key holder in Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  let user: { address: Hex; orgId: string };
  const email = "browser@example.com";

  beforeAll(async () => {
    context = await h.browser.newContext();
    page = await open(context);
  });
  afterAll(async () => {
    await context?.close();
  });

  it("is the browser default and the service serves the frame with a strict CSP", async () => {
    expect(await page.evaluate(() => window.lk.signer.keyHolder.kind)).toBe("iframe");
    expect(await status(page)).toBe("DISCONNECTED");
    const response = await fetch(`${h.svc.baseUrl}/frames/auth`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`frame-ancestors ${h.hostOrigin}`);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("default-src 'none'");
    // The auth frame reads its own origin only (enforced confirmations ask the service what a request does).
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe");
    const scoped = await fetch(`${h.svc.baseUrl}/frames/auth?appId=dev`);
    expect(scoped.headers.get("content-security-policy")).toContain(`frame-ancestors ${h.hostOrigin}`);
    expect((await fetch(`${h.svc.baseUrl}/frames/auth?appId=nope`)).status).toBe(404);
  });

  it("signs in by email OTP and stamps through the frame", async () => {
    user = await signIn(page, email);
    const frame = page.frames().find((f) => f.url().startsWith(`${h.svc.baseUrl}/frames/auth`));
    expect(frame?.url()).toBe(`${h.svc.baseUrl}/frames/auth?appId=dev`);
    const signature = await signMessage(page, "from the browser");
    expect(await verifyMessage({ address: user.address, message: "from the browser", signature })).toBe(true);
    expect(await page.evaluate(() => window.lk.events)).toEqual(["newUserSignup", "connected"]);
  });

  it("keeps the session key out of the host page's reach", async () => {
    const host = await page.evaluate(async () => {
      const iframe = document.querySelector("iframe") as HTMLIFrameElement;
      const attempt = (fn: () => unknown) => {
        try {
          fn();
          return "reachable";
        } catch (e) {
          return (e as Error).name;
        }
      };
      const storage: string[] = [];
      for (let i = 0; i < localStorage.length; i++)
        storage.push(localStorage.getItem(localStorage.key(i) ?? "") ?? "");
      for (let i = 0; i < sessionStorage.length; i++) {
        storage.push(sessionStorage.getItem(sessionStorage.key(i) ?? "") ?? "");
      }
      const globals: string[] = [];
      for (const key of Object.getOwnPropertyNames(window)) {
        try {
          const value = (window as unknown as Record<string, unknown>)[key];
          if (typeof value === "string") globals.push(value);
          else if (value && typeof value === "object" && key !== "lk")
            globals.push(JSON.stringify(value) ?? "");
        } catch {}
      }
      return {
        databases: (await indexedDB.databases()).map((d) => d.name),
        cookie: document.cookie,
        storage,
        globals,
        frameDocument: attempt(() => iframe.contentWindow?.document.body),
        frameIndexedDb: attempt(() =>
          (iframe.contentWindow as Window & typeof globalThis).indexedDB.open("x"),
        ),
      };
    });
    // Nothing of the keys lives in the host's origin: no IndexedDB at all, no cookie.
    expect(host.databases).toEqual([]);
    expect(host.cookie).toBe("");
    // The frame is another origin: its document and its IndexedDB are out of reach.
    expect(host.frameDocument).toBe("SecurityError");
    expect(host.frameIndexedDb).toBe("SecurityError");
    // The stored session carries the bundle, sealed to the frame's target key; no 32-byte secret found in
    // the host's storage or globals opens it.
    const session = JSON.parse(host.storage.find((s) => s.includes('"bundle"')) ?? "null");
    expect(session?.bundle).toEqual(expect.any(String));
    const candidates = [
      ...new Set([...host.storage, ...host.globals].join(" ").match(/[0-9a-fA-F]{64}/g) ?? []),
    ];
    for (const hex of candidates) {
      const key = Uint8Array.from(Buffer.from(hex, "hex"));
      let opened = false;
      try {
        await openCredentialBundle({
          bundle: session.bundle,
          targetPrivateKey: key,
          targetPublicKey: toHex(p256PublicKeyFromPrivate(key, false)),
        });
        opened = true;
      } catch {}
      expect(opened).toBe(false);
    }
    // Inside the frame (test privilege), the target key is a non-extractable CryptoKey.
    const frame = page.frames().find((f) => f.url().startsWith(`${h.svc.baseUrl}/frames/auth`));
    const inFrame = await frame?.evaluate(async (name) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(name);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const target = await new Promise<{ privateKey: CryptoKey }>((resolve, reject) => {
        const req = db.transaction("keys").objectStore("keys").get("target");
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      db.close();
      const exported = await crypto.subtle.exportKey("pkcs8", target.privateKey).then(
        () => "exported",
        (e: Error) => e.name,
      );
      return { extractable: target.privateKey.extractable, exported };
    }, `latchkey-auth-frame ${h.hostOrigin}`);
    expect(inFrame).toEqual({ extractable: false, exported: "InvalidAccessError" });
  });

  it("a page on an origin the app does not allow cannot use the frame", async () => {
    const stranger = await context.newPage();
    await stranger.goto(`${h.strangerOrigin}/`);
    const outcome = await stranger.evaluate(async (frameUrl) => {
      const holder = window.lk.core.createIframeKeyHolder({
        frameUrl,
        timeoutMs: 3000,
        iframeId: "stranger",
      });
      return holder.initTargetKey().then(
        () => "answered",
        (e: { code?: string }) => e.code,
      );
    }, `${h.svc.baseUrl}/frames/auth`);
    expect(outcome).toBe("FRAME_UNAVAILABLE");
    await stranger.close();
  });

  it("restores the session after a reload", async () => {
    await page.reload();
    await page.evaluate(() => window.lk.ready);
    expect(await status(page)).toBe("CONNECTED");
    expect(await page.evaluate(() => window.lk.signer.user?.address)).toBe(user.address);
    const signature = await signMessage(page, "after reload");
    expect(await verifyMessage({ address: user.address, message: "after reload", signature })).toBe(true);
  });

  it("two tabs agree: logout in one logs out the other, a sign-in in one connects the other", async () => {
    const second = await open(context);
    expect(await status(second)).toBe("CONNECTED");
    const signature = await signMessage(second, "second tab");
    expect(await verifyMessage({ address: user.address, message: "second tab", signature })).toBe(true);

    await page.evaluate(() => window.lk.signer.disconnect());
    await second.waitForFunction(() => window.lk.signer.status === "DISCONNECTED");
    expect(await second.evaluate(() => window.lk.events)).toEqual(["connected", "disconnected"]);
    await expect(signMessage(second, "x")).rejects.toThrow("Signer not authenticated");

    await signIn(page, email);
    await second.waitForFunction(() => window.lk.signer.status === "CONNECTED");
    const again = await signMessage(second, "signed in from the other tab");
    expect(
      await verifyMessage({
        address: user.address,
        message: "signed in from the other tab",
        signature: again,
      }),
    ).toBe(true);
    await second.close();
  });
});

describe("session lifecycle in Chromium", () => {
  it("an expired session disconnects (injected clock)", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?manualClock");
    await signIn(page, "expiring@example.com");
    await page.evaluate((ms) => window.lk.clock?.advance(ms - 1000), DEFAULT_SESSION_LENGTH_MS);
    expect(await status(page)).toBe("CONNECTED");
    await page.evaluate(() => window.lk.clock?.advance(1000));
    await page.waitForFunction(() => window.lk.signer.status === "DISCONNECTED");
    const after = await page.evaluate(() => ({
      events: window.lk.events,
      stored: localStorage.getItem(window.lk.signer.sessionManager.sessionKey),
    }));
    expect(after).toEqual({ events: ["newUserSignup", "connected", "disconnected"], stored: null });
    await context.close();
  });

  it("a magic link completes the sign-in on load and its parameters are stripped", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/app?keep=1");
    const email = "magic@example.com";
    const sent = mailCount(h.svc, email);
    const started = await page.evaluate(
      (email) => window.lk.signer.authenticate({ type: "email", email, emailMode: "magicLink" }),
      email,
    );
    expect(started.status).toBe("AWAITING_EMAIL_AUTH");
    const link = await h.svc.magicLink(email, sent);
    expect(link.origin + link.pathname).toBe(`${h.hostOrigin}/app`);

    const landing = await context.newPage();
    await landing.goto(link.toString());
    await landing.evaluate(() => window.lk.ready);
    expect(await status(landing)).toBe("CONNECTED");
    // The bundle and orgId are gone; the signup marker of a link that made an account stays until the
    // modal resets (spec §4, §9), and tells the signer the user is new.
    expect(await landing.evaluate(() => location.search)).toBe("?lk-signup=true");
    expect(await landing.evaluate(() => window.lk.signer.getState().isNewUser)).toBe(true);
    expect(await landing.evaluate(() => window.lk.signer.user?.email)).toBe(email);
    // The first tab hears of it too.
    await page.waitForFunction(() => window.lk.signer.status === "CONNECTED");

    const failed = await context.newPage();
    await failed.goto(
      `${h.hostOrigin}/app?error=${encodeURIComponent("The connection failed or canceled")}&x=1`,
    );
    await failed.evaluate(() => window.lk.ready);
    expect(await failed.evaluate(() => [window.lk.signer.getState().error, location.search])).toEqual([
      { name: "AuthError", message: "The connection failed or canceled" },
      "?x=1",
    ]);
    await context.close();
  });
});

describe("in-page WebCrypto key holder in Chromium", () => {
  it("signs in, signs, restores after reload and keeps non-extractable keys", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?holder=webcrypto");
    expect(await page.evaluate(() => window.lk.signer.keyHolder.kind)).toBe("webcrypto");
    const user = await signIn(page, "webcrypto@example.com");
    const signature = await signMessage(page, "in page");
    expect(await verifyMessage({ address: user.address, message: "in page", signature })).toBe(true);
    expect(await page.evaluate(() => document.querySelector("iframe"))).toBeNull();

    await page.reload();
    await page.evaluate(() => window.lk.ready);
    expect(await status(page)).toBe("CONNECTED");
    const again = await signMessage(page, "in page, reloaded");
    expect(
      await verifyMessage({ address: user.address, message: "in page, reloaded", signature: again }),
    ).toBe(true);

    const target = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open("latchkey-keys");
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const stored = await new Promise<{ privateKey: CryptoKey }>((resolve, reject) => {
        const req = db.transaction("keys").objectStore("keys").get("target");
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      db.close();
      return stored.privateKey.extractable;
    });
    expect(target).toBe(false);
    await context.close();
  });
});
