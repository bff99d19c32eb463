import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./browser/harness";
import { addVirtualAuthenticator, type VirtualCredential } from "./browser/virtualAuthenticator";

// Spec §9's numbers as Chromium receives them: the options the signer passes to
// navigator.credentials.create()/get() (5-minute timeout, 32 random bytes of challenge and user id,
// resident key and user verification 'preferred' at registration, spec §5) and
// the features of the OAuth pop-up's window.open (500×600). The page's own functions are wrapped to
// record their arguments, then called through: the virtual authenticator and the dev OpenID Connect
// provider answer for real.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ hostName: "localhost", oauth: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

interface Recorded {
  create: {
    timeout?: number;
    challenge: number;
    userId: number;
    algs: number[];
    challengeHex: string;
    userIdHex: string;
    authenticatorSelection?: AuthenticatorSelectionCriteria;
  }[];
  get: { timeout?: number; challenge: number; userVerification?: string }[];
  open: { url?: string; target?: string; features?: string }[];
}

/** Records what the page passes to credentials.create/get and window.open (before any script runs). */
async function record(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const rec: Recorded = { create: [], get: [], open: [] };
    (window as unknown as { recorded: Recorded }).recorded = rec;
    const view = (b: BufferSource) =>
      b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const hex = (b: BufferSource) => [...view(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
    const container = navigator.credentials;
    const create = container.create.bind(container);
    const get = container.get.bind(container);
    container.create = (options) => {
      const pk = options?.publicKey;
      if (pk)
        rec.create.push({
          ...(pk.timeout !== undefined ? { timeout: pk.timeout } : {}),
          challenge: view(pk.challenge).byteLength,
          userId: view(pk.user.id).byteLength,
          algs: pk.pubKeyCredParams.map((p) => p.alg),
          challengeHex: hex(pk.challenge),
          userIdHex: hex(pk.user.id),
          ...(pk.authenticatorSelection ? { authenticatorSelection: { ...pk.authenticatorSelection } } : {}),
        });
      return create(options);
    };
    container.get = (options) => {
      const pk = options?.publicKey;
      if (pk)
        rec.get.push({
          ...(pk.timeout !== undefined ? { timeout: pk.timeout } : {}),
          challenge: view(pk.challenge).byteLength,
          ...(pk.userVerification ? { userVerification: pk.userVerification } : {}),
        });
      return get(options);
    };
    const open = window.open.bind(window);
    window.open = (url?: string | URL, target?: string, features?: string) => {
      rec.open.push({
        ...(url !== undefined ? { url: String(url) } : {}),
        ...(target !== undefined ? { target } : {}),
        ...(features !== undefined ? { features } : {}),
      });
      return open(url, target, features);
    };
  });
}

const recorded = (page: Page) => page.evaluate(() => (window as unknown as { recorded: Recorded }).recorded);

async function openTab(holding: VirtualCredential[] = []) {
  const context = await h.browser.newContext();
  const page = await context.newPage();
  await record(page);
  const authenticator = await addVirtualAuthenticator(context, page, holding);
  await page.goto(`${h.hostOrigin}/`);
  await page.evaluate(() => window.lk.ready);
  return { context, page, ...authenticator };
}

const contexts: BrowserContext[] = [];
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

describe("passkey options passed to the browser (spec §9)", () => {
  it("create(): timeout 300000 ms, a fresh 32-byte challenge and user id, ES256 and RS256, resident key and user verification preferred; get(): timeout 300000 ms", async () => {
    const first = await openTab();
    contexts.push(first.context);
    const signedUp = await first.page.evaluate(() =>
      window.lk.signer.authenticate({ type: "passkey", createNew: true }).then((r) => r.status),
    );
    expect(signedUp).toBe("CONNECTED");
    // A second sign-up in another browser: its challenge and user id are new random bytes.
    const second = await openTab();
    contexts.push(second.context);
    expect(
      await second.page.evaluate(() =>
        window.lk.signer.authenticate({ type: "passkey", createNew: true }).then((r) => r.status),
      ),
    ).toBe("CONNECTED");
    const [a, b] = [(await recorded(first.page)).create, (await recorded(second.page)).create];
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    for (const call of [a[0], b[0]])
      expect(call).toMatchObject({ timeout: 300_000, challenge: 32, userId: 32, algs: [-7, -257] });
    // Spec §5: a resident (discoverable) key and user verification are asked for, neither required.
    for (const call of [a[0], b[0]])
      expect(call?.authenticatorSelection).toEqual({
        residentKey: "preferred",
        requireResidentKey: false,
        userVerification: "preferred",
      });
    expect(a[0]?.challengeHex).not.toBe(b[0]?.challengeHex);
    expect(a[0]?.userIdHex).not.toBe(b[0]?.userIdHex);
    expect(a[0]?.challengeHex).not.toBe(a[0]?.userIdHex);

    // Sign-in in a fresh browser holding the passkey: get() with the same 5-minute timeout.
    const [passkey] = await first.credentials();
    const third = await openTab([passkey as VirtualCredential]);
    contexts.push(third.context);
    expect(
      await third.page.evaluate(() =>
        window.lk.signer.authenticate({ type: "passkey" }).then((r) => r.status),
      ),
    ).toBe("CONNECTED");
    const gets = (await recorded(third.page)).get;
    expect(gets).toHaveLength(1);
    expect(gets[0]).toMatchObject({ timeout: 300_000, userVerification: "preferred" });
    // get()'s challenge is the stamped body's hash (DESIGN §3.2): hex of a SHA-256, 64 characters.
    expect(gets[0]?.challenge).toBe(64);
  });
});

describe("the OAuth pop-up (spec §9)", () => {
  it("is opened by the click as a 500×600 pop-up window, centred on the opener", async () => {
    const context = await h.browser.newContext({ viewport: { width: 1000, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await record(page);
    // `?popupOauth`: the signer opens the pop-up itself inside the click (enablePopupOauth).
    await page.goto(`${h.hostOrigin}/?popupOauth`);
    await page.evaluate(() => window.lk.ready);
    await page.evaluate(() => {
      window.lk.onAction = () => {
        window.lk.signer.authenticate({ type: "oauth", authProviderId: "google", mode: "popup" }).then(
          () => {},
          () => {},
        );
      };
    });
    const popupPromise = context.waitForEvent("page");
    await page.click("#action");
    const popup = await popupPromise;
    const opens = (await recorded(page)).open;
    expect(opens).toHaveLength(1);
    const features = Object.fromEntries(
      (opens[0]?.features ?? "").split(",").map((kv) => kv.split("=") as [string, string]),
    );
    const opener = await page.evaluate(() => ({
      x: window.screenX,
      y: window.screenY,
      w: window.outerWidth,
      h: window.outerHeight,
    }));
    expect(features).toEqual({
      popup: "yes",
      width: "500",
      height: "600",
      left: String(Math.max(0, Math.round(opener.x + (opener.w - 500) / 2))),
      top: String(Math.max(0, Math.round(opener.y + (opener.h - 600) / 2))),
    });
    expect(opens[0]?.target).toBe("latchkey-oauth");
    // Chromium opened it as that size of window. The pop-up goes on through the service to the
    // provider's page: a read that lands on a navigation is retried, not counted.
    await expect
      .poll(() => popup.evaluate(() => [window.outerWidth, window.outerHeight]).catch(() => null), {
        timeout: 15_000,
      })
      .toEqual([500, 600]);
    await popup.close();
  });
});
