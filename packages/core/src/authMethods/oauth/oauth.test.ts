import { describe, expect, it, vi } from "vitest";
import { isOauthCancelled, OauthCancelledError, OauthError } from "../../errors";
import { oauthAnswerError } from "../../errors/oauth";
import { redirectToOauth, waitForPopupMessage } from "./popup";
import { buildOauthUrl, sha256Hex } from "./url";

const prepared = {
  codeChallenge: "challenge-abc",
  requestKey: "req-1",
  authProviders: [
    { id: "google", clientId: "g-client", authEndpoint: "https://idp.test/auth?x=1" },
    {
      id: "my-idp",
      isCustomProvider: true,
      clientId: "c-client",
      authEndpoint: "https://custom.test/authorize",
    },
  ],
};

describe("buildOauthUrl", () => {
  it("builds a PKCE authorization URL whose state names the request and this browser's key", async () => {
    const nonce = await sha256Hex("04abcd");
    const url = new URL(
      buildOauthUrl({
        prepared,
        params: { authProviderId: "google", mode: "popup", expirationSeconds: 900 },
        targetPublicKey: "04abcd",
        nonce,
        callbackUrl: "https://auth.example/oauth/callback",
        openerOrigin: "https://app.example",
      }),
    );
    expect(url.origin + url.pathname).toBe("https://idp.test/auth");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      x: "1",
      client_id: "g-client",
      redirect_uri: "https://auth.example/oauth/callback",
      response_type: "code",
      scope: "openid email profile",
      nonce,
      code_challenge: "challenge-abc",
      code_challenge_method: "S256",
      prompt: "select_account",
    });
    const state = JSON.parse(Buffer.from(url.searchParams.get("state") as string, "base64url").toString());
    expect(state).toEqual({
      authProviderId: "google",
      requestKey: "req-1",
      targetPublicKey: "04abcd",
      mode: "popup",
      expirationSeconds: 900,
      openerOrigin: "https://app.example",
    });
    expect(nonce).toMatch(/^[0-9a-f]{64}$/);
  });

  it("sends what the service says a provider takes instead of prompt=select_account, and its scopes", () => {
    const url = new URL(
      buildOauthUrl({
        prepared: {
          ...prepared,
          authProviders: [
            {
              id: "facebook",
              clientId: "fb",
              authEndpoint: "https://fb.test/dialog/oauth",
              scope: "email public_profile",
              // A description cannot change the flow's own parameters.
              authParams: { auth_type: "reauthenticate", state: "evil" },
            },
          ],
        },
        params: { authProviderId: "facebook", mode: "popup" },
        targetPublicKey: "04abcd",
        nonce: "n",
        callbackUrl: "https://auth.example/oauth/callback",
        openerOrigin: "https://app.example",
      }),
    );
    expect(url.searchParams.get("auth_type")).toBe("reauthenticate");
    expect(url.searchParams.get("scope")).toBe("email public_profile");
    expect(url.searchParams.has("prompt")).toBe(false);
    expect(url.searchParams.get("state")).not.toBe("evil");
  });

  it("carries the redirect URL in redirect mode and the auth0 connection", () => {
    const url = new URL(
      buildOauthUrl({
        prepared: {
          ...prepared,
          authProviders: [{ id: "auth0", clientId: "a", authEndpoint: "https://t.auth0.test/authorize" }],
        },
        params: { authProviderId: "auth0", mode: "redirect", auth0Connection: "google-oauth2" },
        targetPublicKey: "04ff",
        nonce: "n",
        callbackUrl: "https://auth.example/oauth/callback",
        redirectUrl: "https://app.example/welcome",
      }),
    );
    expect(url.searchParams.get("connection")).toBe("google-oauth2");
    const state = JSON.parse(Buffer.from(url.searchParams.get("state") as string, "base64url").toString());
    expect(state).toMatchObject({ mode: "redirect", redirectUrl: "https://app.example/welcome" });
    expect(state.openerOrigin).toBeUndefined();
  });

  it("asks each provider the service names without scopes for its default scopes (spec §7)", () => {
    const expected = {
      google: "openid email profile",
      apple: "openid email name",
      facebook: "email public_profile",
      twitch: "openid user:read:email",
      auth0: "openid email profile",
    };
    for (const [id, scope] of Object.entries(expected)) {
      const url = new URL(
        buildOauthUrl({
          prepared: {
            ...prepared,
            authProviders: [{ id, clientId: "c", authEndpoint: `https://${id}.test/auth` }],
          },
          params: { authProviderId: id, mode: "popup" },
          targetPublicKey: "04ab",
          nonce: "n",
          callbackUrl: "https://auth.example/oauth/callback",
          openerOrigin: "https://app.example",
        }),
      );
      expect(url.searchParams.get("scope"), id).toBe(scope);
    }
  });

  it("needs a matching provider and a known scope (spec §5)", () => {
    const base = { prepared, targetPublicKey: "04", nonce: "n", callbackUrl: "https://a/cb" };
    expect(() =>
      buildOauthUrl({ ...base, params: { authProviderId: "twitch", mode: "popup" } }),
    ).toThrowError(new OauthError("OAUTH_PROVIDER_NOT_FOUND"));
    const custom = new URL(buildOauthUrl({ ...base, params: { authProviderId: "my-idp", mode: "popup" } }));
    expect(custom.searchParams.get("scope")).toBe("openid email profile");
    const noScope = {
      ...prepared,
      authProviders: [{ id: "weird", clientId: "w", authEndpoint: "https://w/a" }],
    };
    expect(() =>
      buildOauthUrl({ ...base, prepared: noScope, params: { authProviderId: "weird", mode: "popup" } }),
    ).toThrow("No known scope");
  });
});

describe("redirectToOauth", () => {
  it("fails with the spec's text when the page is still here after 1000 ms", async () => {
    vi.useFakeTimers();
    try {
      const assign = vi.fn();
      const p = redirectToOauth({ location: { assign } as unknown as Location }, "https://idp.test/auth");
      let failed: string | undefined;
      const seen = p.catch((e: Error) => {
        failed = e.message;
      });
      expect(assign).toHaveBeenCalledWith("https://idp.test/auth");
      // Pinned both ways: still waiting at 999 ms (a 500 ms timeout fails here), failed at 1000 (a 2000 ms one fails here).
      await vi.advanceTimersByTimeAsync(500);
      expect(failed).toBeUndefined();
      await vi.advanceTimersByTimeAsync(499);
      expect(failed).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await seen;
      expect(failed).toBe("Failed to redirect to OAuth provider");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("waitForPopupMessage", () => {
  const SERVICE = "https://auth.example";
  function setup() {
    const win = new EventTarget() as unknown as Window;
    const popup = { closed: false } as { closed: boolean };
    const post = (data: unknown, origin: string, source: unknown) =>
      win.dispatchEvent(Object.assign(new Event("message"), { data, origin, source }));
    return { win, popup, post };
  }

  it("takes only the pop-up's message from the service's exact origin", async () => {
    vi.useFakeTimers();
    try {
      const { win, popup, post } = setup();
      const p = waitForPopupMessage({ win, popup: popup as Window, serviceOrigin: SERVICE });
      let settled: unknown;
      p.then((m) => {
        settled = m;
      });
      const fake = { status: "SUCCESS", bundle: "forged", orgId: "o" };
      post(fake, "https://evil.example", popup); // right window, wrong origin
      post(fake, SERVICE, {}); // right origin, another window (e.g. the auth frame)
      post({ kind: "rpc" }, SERVICE, popup); // not a sign-in answer
      post(fake, `${SERVICE}:443`, popup);
      await vi.advanceTimersByTimeAsync(600);
      expect(settled).toBeUndefined();
      const real = { status: "SUCCESS", bundle: "b", orgId: "o", isSignup: false };
      post(real, SERVICE, popup);
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toEqual(real);
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects 'OAuth cancelled' once the pop-up is closed (checked every 500 ms) or on abort", async () => {
    vi.useFakeTimers();
    try {
      const { win } = setup();
      // Counts how often the pop-up is looked at, so a check more frequent than 500 ms shows.
      const checks: number[] = [];
      const popup = {
        get closed() {
          checks.push(Date.now() - start);
          return closed;
        },
      };
      let closed = false;
      const start = Date.now();
      const p = waitForPopupMessage({ win, popup: popup as Window, serviceOrigin: SERVICE });
      let error: unknown;
      const seen = p.catch((e: Error) => {
        error = e;
      });
      await vi.advanceTimersByTimeAsync(1499);
      expect(checks).toEqual([500, 1000]);
      closed = true;
      // Seen closed at the 1500 ms check, cancelled 50 ms later (a turn for a message already queued).
      await vi.advanceTimersByTimeAsync(50);
      expect(checks).toEqual([500, 1000, 1500]);
      expect(error).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await seen;
      expect(checks).toEqual([500, 1000, 1500]);
      expect(error).toBeInstanceOf(OauthCancelledError);
      expect(error).toBeInstanceOf(OauthError);
      expect(error).toMatchObject({
        name: "OauthCancelledError",
        code: "OAUTH_CANCELLED",
        message: "OAuth cancelled",
      });
      expect(isOauthCancelled({ name: "OauthCancelledError", message: "OAuth cancelled" })).toBe(true);
      expect(isOauthCancelled(new OauthError("OAUTH_FAILED", "x"))).toBe(false);

      const second = setup();
      const controller = new AbortController();
      const aborted = waitForPopupMessage({
        win: second.win,
        popup: second.popup as Window,
        serviceOrigin: SERVICE,
        signal: controller.signal,
      }).catch((e: Error) => e);
      controller.abort();
      expect(await aborted).toBeInstanceOf(OauthCancelledError);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("oauthAnswerError", () => {
  it("gives a provider's refusal code a sentence; the service's own text stays as it is", () => {
    expect([oauthAnswerError("login_required").code, oauthAnswerError("login_required").message]).toEqual([
      "OAUTH_PROVIDER_ERROR",
      "The sign-in provider needs you to sign in or consent there first. Try again. (login_required)",
    ]);
    expect(oauthAnswerError("invalid_scope").message).toBe(
      "The sign-in provider refused the sign-in. (invalid_scope)",
    );
    const own = oauthAnswerError("Couldn't complete sign-in with Google");
    expect([own.code, own.message]).toEqual(["OAUTH_FAILED", "Couldn't complete sign-in with Google"]);
    expect(oauthAnswerError(undefined).message).toBe("OAuth sign-in failed");
  });
});
