import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./browser/harness";
import { mailCount } from "./helpers/service";

// Social sign-in in Chromium against the real service and its dev OpenID Connect provider (the dev
// app's "google" and "auth0"), whose login page lists test users as `button.user[data-sub=...]`.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ hostName: "localhost", oauth: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

type Outcome =
  | { ok: true; status: string; user: { orgId: string; email?: string; idToken?: string } | null }
  | { ok: false; name: string; code?: string; message: string };

async function open(context: BrowserContext, path = "/"): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${h.hostOrigin}${path}`);
  await page.evaluate(() => window.lk.ready);
  return page;
}

const state = (page: Page) =>
  page.evaluate(() => {
    const s = window.lk.signer.getState();
    const raw = localStorage.getItem(window.lk.signer.sessionManager.sessionKey);
    return {
      status: s.status,
      error: s.error,
      isNewUser: s.isNewUser,
      authLinkingStatus: s.authLinkingStatus,
      sessionType: raw ? (JSON.parse(raw) as { type: string }).type : null,
    };
  });

/**
 * Clicks the page's button, whose handler runs `action` (a real user gesture), and answers the pop-up
 * it opened. The action's outcome lands in `window.lk.result`.
 */
async function clickAndGetPopup(page: Page, action: string): Promise<Page> {
  await page.evaluate((action) => {
    window.lk.result = undefined;
    window.lk.onAction = () => {
      const run = new Function("signer", `return ${action}`) as (s: unknown) => Promise<unknown>;
      run(window.lk.signer).then(
        (r) => {
          window.lk.result = { ok: true, ...(r as object) };
        },
        (e: Error & { code?: string }) => {
          window.lk.result = { ok: false, name: e.name, code: e.code, message: e.message };
        },
      );
    };
  }, action);
  const popup = page.context().waitForEvent("page");
  await page.click("#action");
  return popup;
}

async function result(page: Page): Promise<Outcome> {
  await page.waitForFunction(() => window.lk.result !== undefined, undefined, { timeout: 20_000 });
  return page.evaluate(() => window.lk.result as Outcome);
}

const POPUP_SIGN_IN = `signer.authenticate({ type: "oauth", authProviderId: "google", mode: "popup" })`;

async function signInByEmail(page: Page, email: string): Promise<{ orgId: string }> {
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
  return done.user as { orgId: string };
}

describe("social sign-in in Chromium (dev OpenID Connect provider)", () => {
  let adaOrgId: string;

  it("signs a new user up in a pop-up opened by the click (enablePopupOauth)", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?popupOauth");
    const popup = await clickAndGetPopup(page, POPUP_SIGN_IN);
    expect(await page.evaluate(() => window.lk.signer.status)).toBe("AUTHENTICATING_OAUTH");
    await popup.click('button.user[data-sub="ada"]');
    const outcome = await result(page);
    if (!outcome.ok) throw new Error(`${outcome.name}: ${outcome.message}`);
    expect(outcome.status).toBe("CONNECTED");
    expect(outcome.user?.email).toBe("ada@example.com");
    expect(outcome.user?.idToken).toMatch(/^ey/);
    adaOrgId = outcome.user?.orgId as string;
    expect(await state(page)).toMatchObject({
      status: "CONNECTED",
      error: null,
      isNewUser: true,
      sessionType: "oauth",
    });
    expect(await page.evaluate(() => window.lk.events)).toEqual([
      "authenticating:oauth",
      "newUserSignup",
      "connected",
      "connectedOauth",
    ]);
    // The pop-up closed itself after posting.
    await expect.poll(() => popup.isClosed()).toBe(true);
    // The session signs.
    const methods = await page.evaluate(() => window.lk.signer.listAuthMethods());
    expect(methods.oauthProviders).toEqual([expect.objectContaining({ providerName: "google" })]);
    await context.close();
  });

  it("without enablePopupOauth needs preparePopupOauth() in the click", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/");
    const refused = await page.evaluate(() =>
      window.lk.signer.authenticate({ type: "oauth", authProviderId: "google", mode: "popup" }).then(
        () => null,
        (e: Error & { code?: string }) => ({ name: e.name, code: e.code }),
      ),
    );
    expect(refused).toEqual({ name: "OauthError", code: "OAUTH_POPUP_NOT_PREPARED" });
    expect(await state(page)).toMatchObject({
      status: "DISCONNECTED",
      error: { name: "OauthError", message: expect.stringContaining("preparePopupOauth()") },
    });
    await page.evaluate(() => {
      window.lk.events.length = 0;
    });

    // The click only opens the blank pop-up; the sign-in starts later, outside the gesture.
    await page.evaluate(() => {
      window.lk.onAction = () => window.lk.signer.preparePopupOauth();
    });
    const popupPromise = context.waitForEvent("page");
    await page.click("#action");
    const popup = await popupPromise;
    const signedIn = page.evaluate(() =>
      window.lk.signer
        .authenticate({ type: "oauth", authProviderId: "google", mode: "popup" })
        .then((r) => ({ status: r.status, orgId: r.user?.orgId })),
    );
    await popup.click('button.user[data-sub="ada"]');
    expect(await signedIn).toEqual({ status: "CONNECTED", orgId: adaOrgId });
    // A returning user: no sign-up.
    expect(await page.evaluate(() => window.lk.events)).toEqual([
      "authenticating:oauth",
      "connected",
      "connectedOauth",
    ]);
    await context.close();
  });

  it("signs the same user in by redirect; the result's parameters are stripped on load", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/app?keep=1");
    await page.evaluate(() => {
      void window.lk.signer.authenticate({ type: "oauth", authProviderId: "google", mode: "redirect" });
    });
    await page.waitForURL((url) => url.toString().startsWith(h.idp?.issuer as string));
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    await page.click('button.user[data-sub="ada"]');
    await page.waitForURL((url) => url.origin === h.hostOrigin && url.pathname === "/app");
    await page.evaluate(() => window.lk.ready);
    expect(await page.evaluate(() => location.search)).toBe("?keep=1");
    expect(await state(page)).toMatchObject({ status: "CONNECTED", error: null, sessionType: "oauth" });
    const user = await page.evaluate(() => window.lk.signer.user);
    expect(user).toMatchObject({ orgId: adaOrgId, email: "ada@example.com" });
    expect(user?.idToken).toMatch(/^ey/);
    // User.claims: what the provider's ID token says about the user (spec §3).
    expect(user?.claims).toMatchObject({ sub: "ada", email: "ada@example.com", aud: expect.any(String) });
    expect(await page.evaluate(() => window.lk.events)).toEqual(["connected", "connectedOauth"]);
    await context.close();
  });

  it("a closed pop-up rejects 'OAuth cancelled' and the signer is back where it was", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?popupOauth");
    const popup = await clickAndGetPopup(page, POPUP_SIGN_IN);
    await popup.waitForSelector('button.user[data-sub="ada"]');
    await popup.close();
    expect(await result(page)).toEqual({
      ok: false,
      name: "OauthCancelledError",
      code: "OAUTH_CANCELLED",
      message: "OAuth cancelled",
    });
    expect(await state(page)).toMatchObject({
      status: "DISCONNECTED",
      error: { name: "OauthCancelledError", message: "OAuth cancelled" },
      sessionType: null,
    });
    expect(
      await page.evaluate(() => window.lk.core.isOauthCancelled(window.lk.signer.getState().error)),
    ).toBe(true);
    await context.close();
  });

  it("ignores messages from other origins and from windows other than the pop-up", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?popupOauth");
    const popup = await clickAndGetPopup(page, POPUP_SIGN_IN);
    await popup.waitForSelector('button.user[data-sub="ada"]');
    const fake = { status: "SUCCESS", bundle: "forged", orgId: "forged", isSignup: false };
    // The pop-up itself, but on the provider's origin.
    await popup.evaluate((m) => window.opener.postMessage(m, "*"), fake);
    // A page on another origin, framed by the host page.
    await page.evaluate(
      (src) =>
        new Promise<void>((resolve) => {
          const frame = document.createElement("iframe");
          frame.name = "stranger";
          frame.src = src;
          frame.onload = () => resolve();
          document.body.append(frame);
        }),
      `${h.strangerOrigin}/stranger`,
    );
    const stranger = page.frames().find((f) => f.url().startsWith(h.strangerOrigin));
    await stranger?.evaluate((m) => window.parent.postMessage(m, "*"), fake);
    // The service's own origin, but not the pop-up: the auth frame.
    const authFrame = page.frames().find((f) => f.url().startsWith(`${h.serviceUrl}/frames/auth`));
    expect(authFrame).toBeDefined();
    await authFrame?.evaluate((m) => window.parent.postMessage(m, "*"), fake);
    await page.waitForTimeout(700);
    expect(await page.evaluate(() => window.lk.result)).toBeUndefined();
    expect((await state(page)).status).toBe("AUTHENTICATING_OAUTH");

    await popup.click('button.user[data-sub="ada"]');
    const outcome = await result(page);
    expect(outcome).toMatchObject({ ok: true, status: "CONNECTED", user: { orgId: adaOrgId } });
    await context.close();
  });

  it("links a provider to an existing email account after the email code, then signs in with it alone", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?popupOauth");
    const email = "grace@example.com";
    const { orgId } = await signInByEmail(page, email);
    await page.evaluate(() => window.lk.signer.disconnect());
    await page.evaluate(() => {
      window.lk.events.length = 0;
    });

    const sent = mailCount(h.svc, email);
    const popup = await clickAndGetPopup(page, POPUP_SIGN_IN);
    await popup.click('button.user[data-sub="grace"]');
    const prompted = await result(page);
    expect(prompted).toMatchObject({ ok: true, status: "AWAITING_OTP_AUTH", user: null });
    const s = await state(page);
    expect(s).toMatchObject({
      status: "AWAITING_OTP_AUTH",
      authLinkingStatus: { email, providerName: "google" },
      sessionType: null,
    });
    expect(s.authLinkingStatus?.idToken).toMatch(/^ey/);
    expect(await page.evaluate(() => window.lk.events)).toEqual([
      "authenticating:oauth",
      `emailAuthLinkingRequired:${email}`,
    ]);

    const code = await h.svc.otpCode(email, sent);
    const done = await page.evaluate(
      (otpCode) => window.lk.signer.authenticate({ type: "otp", otpCode }),
      code,
    );
    expect(done.status).toBe("CONNECTED");
    expect(done.user?.orgId).toBe(orgId);
    expect(await state(page)).toMatchObject({ status: "CONNECTED", error: null });
    expect((await state(page)).authLinkingStatus).toBeUndefined();
    const methods = await page.evaluate(() => window.lk.signer.listAuthMethods());
    expect(methods.email).toBe(email);
    expect(methods.oauthProviders).toEqual([expect.objectContaining({ providerName: "google" })]);

    // Next time the provider alone signs in as that user.
    await page.evaluate(() => window.lk.signer.disconnect());
    const again = await clickAndGetPopup(page, POPUP_SIGN_IN);
    await again.click('button.user[data-sub="grace"]');
    expect(await result(page)).toMatchObject({ ok: true, status: "CONNECTED", user: { orgId, email } });
    expect((await state(page)).sessionType).toBe("oauth");
    await context.close();
  });

  it("adds a provider to the signed-in user through a pop-up (ID token only)", async () => {
    const context = await h.browser.newContext();
    const page = await open(context, "/?popupOauth");
    const email = "alan@example.com";
    const { orgId } = await signInByEmail(page, email);
    const popup = await clickAndGetPopup(page, `signer.addOauthProvider({ authProviderId: "auth0" })`);
    await popup.click('button.user[data-sub="alan"]');
    const added = (await result(page)) as unknown as Record<string, unknown>;
    expect(added.ok).toBe(true);
    expect(Object.values(added)).toContainEqual(expect.objectContaining({ providerName: "auth0" }));
    expect(await state(page)).toMatchObject({ status: "CONNECTED", error: null });

    await page.evaluate(() => window.lk.signer.disconnect());
    const again = await clickAndGetPopup(
      page,
      `signer.authenticate({ type: "oauth", authProviderId: "auth0", mode: "popup" })`,
    );
    await again.click('button.user[data-sub="alan"]');
    expect(await result(page)).toMatchObject({ ok: true, status: "CONNECTED", user: { orgId, email } });
    await context.close();
  });

  it("an OAuth error in the URL becomes the initial error; incomplete linking parameters are refused", async () => {
    const context = await h.browser.newContext();
    const page = await open(
      context,
      `/app?error=${encodeURIComponent("Couldn't complete sign-in with Google")}&authProvider=google&x=1`,
    );
    expect(await page.evaluate(() => location.search)).toBe("?x=1");
    expect(await state(page)).toMatchObject({
      status: "DISCONNECTED",
      error: { name: "AuthError", message: "Couldn't complete sign-in with Google" },
    });

    const linking = await open(
      context,
      "/app?status=ACCOUNT_LINKING_CONFIRMATION_REQUIRED&email=grace%40example.com&otpId=o&orgId=x",
    );
    expect(await linking.evaluate(() => location.search)).toBe("");
    expect(await state(linking)).toMatchObject({
      status: "DISCONNECTED",
      error: { message: "Missing required query params for auth linking prompt" },
    });
    await context.close();
  });
});
