import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type KeyHolder,
  type SessionStorageLike,
  type Signer,
  SignerStatus,
} from "@latchkey/core";
import { attachDevIdentityProvider, type DevOidcProvider } from "@latchkey/server/dev";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// The signer's social sign-in driven from Node: a scripted window (no browser) and the real service
// with its dev OpenID Connect provider, walked with fetch and a cookie jar as a browser would.
const APP = "http://app.test";
let svc: TestService;
let idp: DevOidcProvider;

beforeAll(async () => {
  svc = await startService({ devOrigins: [APP], devMagicLinkUrls: [`${APP}/app`] });
  idp = await attachDevIdentityProvider(svc.service, svc.baseUrl);
});
afterAll(async () => {
  await idp?.close();
  await svc?.close();
});

/** Follows the provider's pages with a cookie jar, picks `user`, and answers the service's reply. */
async function walkProvider(authUrl: string, user: string, action: "login" | "abort" = "login") {
  const cookies = new Map<string, string>();
  const get = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const i = pair.indexOf("=");
      if (i > 0) cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const leave = async (start: string, init?: RequestInit) => {
    let res = await get(start, init);
    let url = start;
    for (let hops = 0; hops < 10; hops++) {
      const loc = res.headers.get("location");
      if (!loc) return url;
      url = new URL(loc, url).toString();
      if (!url.startsWith(idp.issuer)) return url;
      res = await get(url);
    }
    throw new Error("too many redirects");
  };
  const interaction = await leave(authUrl);
  const html = await (await get(interaction)).text();
  const uid = /\/interaction\/([^/"]+)\/login/.exec(html)?.[1] as string;
  const callback = await leave(`${idp.issuer}/interaction/${uid}/${action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ sub: user }).toString(),
  });
  expect(callback.startsWith(`${svc.baseUrl}/oauth/callback`)).toBe(true);
  return fetch(callback, { redirect: "manual" });
}

/** A scripted page: where it is, where it was sent, its pop-up and the messages it receives. */
function fakeWindow(href: string) {
  const target = new EventTarget();
  const win = {
    assigned: [] as string[],
    replaced: [] as string[],
    popup: undefined as undefined | { closed: boolean; url?: string; close(): void; location: object },
    location: {
      href,
      origin: new URL(href).origin,
      assign(url: string) {
        win.assigned.push(url);
      },
    },
    history: {
      state: null,
      replaceState(_d: unknown, _u: string, url?: string | URL | null) {
        win.replaced.push(String(url));
      },
    },
    screenX: 0,
    screenY: 0,
    outerWidth: 1200,
    outerHeight: 900,
    open() {
      const popup = {
        closed: false,
        url: undefined as string | undefined,
        close() {
          popup.closed = true;
        },
        location: {
          set href(url: string) {
            popup.url = url;
          },
        },
      };
      win.popup = popup;
      return popup;
    },
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
  };
  return win;
}

function newSigner(
  win: ReturnType<typeof fakeWindow>,
  shared: { keyHolder: KeyHolder; storage: SessionStorageLike },
  events: string[] = [],
): Signer {
  const signer = createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    ...shared,
    window: win as never,
    enablePopupOauth: true,
  });
  for (const name of ["connected", "connectedOauth", "newUserSignup", "disconnected"] as const)
    signer.on(name, () => events.push(name));
  signer.on("emailAuthLinkingRequired", (p) => events.push(`emailAuthLinkingRequired:${p.email}`));
  return signer;
}

describe("social sign-in driven from Node", () => {
  it("redirect: leaves for the provider; on the way back an existing email asks for the code, then links", async () => {
    const email = "grace@example.com";
    const shared = { keyHolder: createMemoryKeyHolder(), storage: createMemoryStorage() };
    // Grace has an email account.
    const emailSigner = newSigner(fakeWindow(`${APP}/app`), {
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
    });
    const sent = mailCount(svc, email);
    await emailSigner.authenticate({ type: "email", email, emailMode: "otp" });
    const signedUp = await emailSigner.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
    const orgId = signedUp.user?.orgId as string;

    const page = fakeWindow(`${APP}/app?x=1&orgId=stale#frag`);
    const signer = newSigner(page, shared);
    await signer.init();
    const started = signer
      .authenticate({ type: "oauth", authProviderId: "google", mode: "redirect" })
      .catch((e: Error & { code?: string }) => e);
    await expect.poll(() => page.assigned.length).toBe(1);
    expect(signer.status).toBe(SignerStatus.AUTHENTICATING_OAUTH);
    const authUrl = new URL(page.assigned[0] as string);
    const state = JSON.parse(
      Buffer.from(authUrl.searchParams.get("state") as string, "base64url").toString(),
    );
    expect(state).toMatchObject({
      mode: "redirect",
      redirectUrl: `${APP}/app?x=1`,
      authProviderId: "google",
    });
    // This page did not leave (it is a script): after 1000 ms the redirect counts as failed.
    expect(await started).toMatchObject({
      name: "OauthError",
      code: "OAUTH_REDIRECT_FAILED",
      message: "Failed to redirect to OAuth provider",
    });
    expect(signer.getState()).toMatchObject({
      status: "DISCONNECTED",
      error: { message: "Failed to redirect to OAuth provider" },
    });

    const mark = mailCount(svc, email);
    const reply = await walkProvider(authUrl.toString(), "grace");
    expect(reply.status).toBe(302);
    const back = reply.headers.get("location") as string;
    expect(new URL(back).searchParams.get("status")).toBe("ACCOUNT_LINKING_CONFIRMATION_REQUIRED");

    // The page loads again at the redirect URL.
    const events: string[] = [];
    const landing = fakeWindow(back);
    const returned = newSigner(landing, shared, events);
    await returned.init();
    expect(landing.replaced).toEqual([`${APP}/app?x=1`]);
    expect(returned.getState()).toMatchObject({
      status: "AWAITING_OTP_AUTH",
      error: null,
      authLinkingStatus: { email, providerName: "google" },
    });
    expect(events).toEqual([`emailAuthLinkingRequired:${email}`]);

    const done = await returned.authenticate({ type: "otp", otpCode: await svc.otpCode(email, mark) });
    expect(done).toMatchObject({ status: "CONNECTED", user: { orgId, email } });
    expect(returned.getState().authLinkingStatus).toBeUndefined();
    expect((await returned.listAuthMethods()).oauthProviders).toEqual([
      expect.objectContaining({ providerName: "google" }),
    ]);
  });

  it("pop-up: the provider's cancel is an OAuth failure with its message; the status goes back", async () => {
    const shared = { keyHolder: createMemoryKeyHolder(), storage: createMemoryStorage() };
    const page = fakeWindow(`${APP}/`);
    const signer = newSigner(page, shared);
    await signer.init();
    const started = signer
      .authenticate({ type: "oauth", authProviderId: "google", mode: "popup" })
      .catch((e: Error & { code?: string }) => e);
    // The pop-up opened synchronously, inside the (here imaginary) click.
    expect(page.popup).toBeDefined();
    await expect.poll(() => page.popup?.url).toBeDefined();
    const reply = await walkProvider(page.popup?.url as string, "ada", "abort");
    const message = JSON.parse(/var m=(\{.*?\});try/.exec(await reply.text())?.[1] ?? "null");
    page.dispatchEvent(
      Object.assign(new Event("message"), { data: message, origin: svc.baseUrl, source: page.popup }),
    );
    // A cancel at the provider is a user cancel, as closing the pop-up is.
    expect(await started).toMatchObject({
      name: "OauthCancelledError",
      code: "OAUTH_CANCELLED",
      message: "OAuth cancelled",
    });
    expect(signer.getState()).toMatchObject({
      status: "DISCONNECTED",
      error: { name: "OauthCancelledError", message: "OAuth cancelled" },
    });
    expect(page.popup?.closed).toBe(true);
  });

  it("a signed-in user whose OAuth attempt fails stays signed in: the error is set, CONNECTED comes back (spec §4)", async () => {
    const page = fakeWindow(`${APP}/`);
    const email = "stays@example.com";
    const signer = await signInWithOtp(svc, email, { window: page as never, enablePopupOauth: true });
    const { user } = signer.getState();
    expect(signer.getState()).toMatchObject({ status: "CONNECTED", user: { email } });
    const started = signer
      .authenticate({ type: "oauth", authProviderId: "google", mode: "popup" })
      .catch((e: Error) => e);
    await expect.poll(() => page.popup?.url).toBeDefined();
    expect(signer.getState().status).toBe("AUTHENTICATING_OAUTH");
    page.popup?.close();
    expect(await started).toMatchObject({ name: "OauthCancelledError", message: "OAuth cancelled" });
    // Not forced out: the same user, the error to show, and a session that still stamps requests.
    expect(signer.getState()).toMatchObject({
      status: "CONNECTED",
      user,
      error: { name: "OauthCancelledError", message: "OAuth cancelled" },
    });
    expect(signer.sessionManager.getSession()).not.toBeNull();
    expect((await signer.listAuthMethods()).email).toBe(email);
  });
});
