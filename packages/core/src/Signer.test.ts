import { describe, expect, it } from "vitest";
import type { KeyHolder } from "./keyHolders/types";
import { Signer } from "./Signer";
import { createMemoryStorage } from "./session/storage";
import type { Session, User } from "./session/types";

// No service: a key holder that accepts any bundle, and a session already in storage.
const keyHolder: KeyHolder = {
  kind: "memory",
  initTargetKey: async () => "04aa",
  getTargetPublicKey: async () => "04aa",
  injectCredentialBundle: async () => "02bb",
  stamp: async () => ({ stampHeaderName: "X-Stamp", stampHeaderValue: "x" }),
  clear: async () => {},
};
const ada: User = { address: "0x0000000000000000000000000000000000000001", userId: "u1", orgId: "o1" };

function signerWithSession(user: User | null, search = "") {
  const history: string[] = [];
  const signer = new Signer({
    baseUrl: "http://127.0.0.1:9",
    keyHolder,
    storage: createMemoryStorage(),
    window: {
      location: { href: `https://app.example/page${search}` },
      history: { state: null, replaceState: (_d, _u, url) => history.push(String(url)) },
      addEventListener: () => {},
      removeEventListener: () => {},
    },
  });
  if (user) {
    const session: Session = { type: "otp", user, bundle: "b1", expirationDateMs: Date.now() + 60_000 };
    signer.sessionManager.setSession(session);
  }
  const events: string[] = [];
  for (const name of ["statusChanged", "errorChanged", "userChanged", "connected", "disconnected"] as const)
    signer.on(name, () => events.push(name));
  return { signer, events, history };
}

describe("Signer (store and events)", () => {
  it("restores a stored session on init: user first, then the status", async () => {
    const { signer, events } = signerWithSession(ada);
    await signer.init();
    expect(signer.getState()).toMatchObject({ status: "CONNECTED", user: ada, error: null });
    expect(events).toEqual(["userChanged", "connected", "statusChanged"]);
    signer.destroy();
  });

  it("the same session with new user data changes only the user (a store selector hears it)", async () => {
    const { signer, events } = signerWithSession(ada);
    await signer.init();
    events.length = 0;
    const users: (User | null)[] = [];
    signer.store.subscribe(
      (s) => s.user,
      (user) => users.push(user),
    );
    const renamed = { ...ada, email: "ada@example.com" };
    const stored = signer.sessionManager.getSession() as Session;
    // As another tab would: straight into storage, then the manager re-reads it (focus/storage event).
    const { storage, sessionKey } = signer.sessionManager;
    storage.setItem(sessionKey, JSON.stringify({ ...stored, user: renamed }));
    signer.sessionManager.recheck();
    await Promise.resolve();
    expect(users).toEqual([renamed]);
    expect(events).toEqual(["userChanged"]);
    signer.destroy();
  });

  it("a call made before init() settles still finds the stored user (one guard, awaited init)", async () => {
    const { signer } = signerWithSession(ada);
    await expect(signer.requireUser()).resolves.toEqual(ada);
    signer.destroy();
  });

  it("without a user every guard throws its catalogue error", async () => {
    const { signer } = signerWithSession(null);
    await expect(signer.requireUser()).rejects.toMatchObject({ code: "NOT_AUTHENTICATED" });
    await expect(signer.removeOauthProvider("p")).rejects.toMatchObject({ code: "MUST_BE_AUTHENTICATED" });
    await expect(signer.getMfaFactors()).rejects.toMatchObject({ code: "NOT_CONNECTED" });
    await expect(signer.addPasskey()).rejects.toMatchObject({ code: "NOT_AUTHENTICATED" });
    signer.destroy();
  });

  it("URL returns: an ?error= is the initial error (no code); a bad linking prompt keeps its code", async () => {
    const failed = signerWithSession(null, "?error=Denied&x=1");
    await failed.signer.init();
    expect(failed.signer.getState().error).toEqual({ name: "AuthError", message: "Denied" });
    expect(failed.history).toEqual(["https://app.example/page?x=1"]);

    // A provider's refusal arrives as its code only (the service drops the provider's text): it reads as
    // a sentence the user can act on, with the code for support.
    const refused = signerWithSession(null, "?error=temporarily_unavailable&authProvider=google");
    await refused.signer.init();
    expect(refused.signer.getState().error).toEqual({
      name: "OauthError",
      code: "OAUTH_PROVIDER_ERROR",
      message: "The sign-in provider is unavailable right now. Try again later. (temporarily_unavailable)",
    });
    const other = signerWithSession(null, "?error=provider_error");
    await other.signer.init();
    expect(other.signer.getState().error).toMatchObject({
      code: "OAUTH_PROVIDER_ERROR",
      message: "The sign-in provider refused the sign-in. (provider_error)",
    });

    const linking = signerWithSession(null, "?status=ACCOUNT_LINKING_CONFIRMATION_REQUIRED&email=a%40b.c");
    await linking.signer.init();
    expect(linking.signer.getState()).toMatchObject({
      status: "DISCONNECTED",
      error: {
        code: "AUTH_LINKING_PARAMS_MISSING",
        message: "Missing required query params for auth linking prompt",
      },
    });
  });
});
