import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./browser/harness";
import { addVirtualAuthenticator, type VirtualCredential } from "./browser/virtualAuthenticator";
import { mailCount } from "./helpers/service";

// Passkeys in Chromium through the CDP virtual authenticator (TOOLCHAIN "passkeys in tests"). The host
// app is served as http://localhost:PORT: the dev app's relying party is `localhost`.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ hostName: "localhost" });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  credentials(): Promise<VirtualCredential[]>;
  /** navigator.credentials.create / get calls the page made: one call is one prompt. */
  prompts(): Promise<{ create: number; get: number }>;
}

/** A fresh browser context whose page has a virtual platform authenticator (optionally holding passkeys). */
async function openTab(holding: VirtualCredential[] = []): Promise<Tab> {
  const context = await h.browser.newContext();
  const page = await context.newPage();
  const authenticator = await addVirtualAuthenticator(context, page, holding);
  await page.goto(`${h.hostOrigin}/`);
  await page.evaluate(() => window.lk.ready);
  return {
    context,
    page,
    ...authenticator,
  };
}

/** CDP spells credential ids in padded standard base64; the signer and the service in base64url. */
const b64url = (cdpId: string) => Buffer.from(cdpId, "base64").toString("base64url");

type Outcome =
  | { ok: true; status: string; user: { address: Hex; orgId: string; credentialId?: string; email?: string } }
  | { ok: false; name: string; code?: string; message: string; causeName?: string };

/** Runs `authenticate` in the page; a rejection comes back as data (name, code, message, cause). */
function authenticate(tab: Tab, params: object): Promise<Outcome> {
  return tab.page.evaluate(
    (params) =>
      window.lk.signer.authenticate(params as never).then(
        (r) => ({ ok: true as const, status: r.status, user: r.user as never }),
        (e: Error & { code?: string }) => ({
          ok: false as const,
          name: e.name,
          code: e.code,
          message: e.message,
          causeName: (e.cause as Error | undefined)?.name,
        }),
      ),
    params,
  );
}

function connected(outcome: Outcome) {
  if (!outcome.ok) throw new Error(`expected a sign-in, got ${outcome.name}: ${outcome.message}`);
  expect(outcome.status).toBe("CONNECTED");
  return outcome.user;
}

async function signMessage(tab: Tab, message: string): Promise<Hex> {
  return tab.page.evaluate(
    (message) => window.lk.core.toViemAccount(window.lk.signer).signMessage({ message }),
    message,
  );
}

const CANCELLED = {
  ok: false,
  name: "PasskeyCancelledError",
  code: "PASSKEY_CANCELLED",
  message:
    "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
};

describe("passkeys in Chromium (virtual authenticator)", () => {
  let first: Tab;
  /** The passkey as the newest authenticator holds it: its signCount only grows (clones are refused). */
  let passkey: VirtualCredential;
  let stale: VirtualCredential;
  let address: Hex;

  afterAll(async () => {
    await first?.context.close();
  });

  it("signs up with a new passkey from a page", async () => {
    first = await openTab();
    const user = connected(await authenticate(first, { type: "passkey", createNew: true }));
    const credentials = await first.credentials();
    expect(credentials).toHaveLength(1);
    passkey = credentials[0] as VirtualCredential;
    expect(passkey).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
    expect(user.credentialId).toBe(b64url(passkey.credentialId));
    address = user.address;
    // Sign-up is one prompt: the service answers the attested sign-up with the session.
    expect(await first.prompts()).toEqual({ create: 1, get: 0 });
    const state = await first.page.evaluate(() => ({
      events: window.lk.events,
      status: window.lk.signer.status,
      isNewUser: window.lk.signer.getState().isNewUser,
      session: JSON.parse(localStorage.getItem(window.lk.signer.sessionManager.sessionKey) ?? "null"),
    }));
    expect(state).toMatchObject({
      events: ["newUserSignup", "connected", "connectedPasskey"],
      status: "CONNECTED",
      isNewUser: true,
      session: { type: "passkey", user: { address, credentialId: user.credentialId } },
    });
    const signature = await signMessage(first, "made with a passkey");
    expect(await verifyMessage({ address, message: "made with a passkey", signature })).toBe(true);
  });

  it("logs in on a fresh context holding the same passkey, in one prompt, and signs without another", async () => {
    const tab = await openTab([passkey]);
    try {
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
      const before = (await tab.credentials())[0]?.signCount as number;
      const user = connected(await authenticate(tab, { type: "passkey" }));
      expect(user.address).toBe(address);
      expect(user.credentialId).toBe(b64url(passkey.credentialId));
      expect(await tab.prompts()).toEqual({ create: 0, get: 1 });
      expect((await tab.credentials())[0]?.signCount).toBe(before + 1);
      expect(await tab.page.evaluate(() => window.lk.events)).toEqual(["connected", "connectedPasskey"]);
      stale = passkey;
      passkey = (await tab.credentials())[0] as VirtualCredential;

      const signature = await signMessage(tab, "no second prompt");
      expect(await verifyMessage({ address, message: "no second prompt", signature })).toBe(true);
      const typed = await tab.page.evaluate(() =>
        window.lk.core.toViemAccount(window.lk.signer).signMessage({ message: "and another" }),
      );
      expect(await verifyMessage({ address, message: "and another", signature: typed })).toBe(true);
      expect(await tab.prompts()).toEqual({ create: 0, get: 1 });
      expect((await tab.credentials())[0]?.signCount).toBe(before + 1);

      // The session survives a reload without a prompt.
      await tab.page.reload();
      await tab.page.evaluate(() => window.lk.ready);
      expect(await tab.page.evaluate(() => window.lk.signer.user?.credentialId)).toBe(user.credentialId);
      expect(await tab.prompts()).toEqual({ create: 0, get: 0 });
      expect((await tab.credentials())[0]?.signCount).toBe(before + 1);
    } finally {
      await tab.context.close();
    }
  });

  it("a refused prompt (user verification fails) rejects as a cancel; the signer is DISCONNECTED", async () => {
    const tab = await openTab([passkey]);
    try {
      await tab.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: tab.authenticatorId,
        isUserVerified: false,
      });
      const outcome = await authenticate(tab, { type: "passkey" });
      expect(outcome).toEqual({ ...CANCELLED, causeName: "NotAllowedError" });
      expect(
        await tab.page.evaluate(() => ({
          status: window.lk.signer.status,
          error: window.lk.signer.getState().error,
          cancelled: window.lk.core.isPasskeyCancelled(window.lk.signer.getState().error),
        })),
      ).toEqual({
        status: "DISCONNECTED",
        error: { name: CANCELLED.name, code: CANCELLED.code, message: CANCELLED.message },
        cancelled: true,
      });

      // Trying again once the user verifies works.
      await tab.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: tab.authenticatorId,
        isUserVerified: true,
      });
      expect(connected(await authenticate(tab, { type: "passkey" })).address).toBe(address);
      expect(await tab.page.evaluate(() => window.lk.signer.getState().error)).toBeNull();
      passkey = (await tab.credentials())[0] as VirtualCredential;
    } finally {
      await tab.context.close();
    }
  });

  it("a copy of the passkey with an old signature counter is refused (cloned authenticator)", async () => {
    const tab = await openTab([stale]);
    try {
      expect(await authenticate(tab, { type: "passkey" })).toMatchObject({
        ok: false,
        name: "SignerApiError",
        code: "INVALID_STAMP",
        message: expect.stringContaining("counter"),
      });
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
    } finally {
      await tab.context.close();
    }
  });

  it("a prompt nobody answers is cancelled by the app (the modal's Cancel)", async () => {
    const tab = await openTab([passkey]);
    try {
      await tab.cdp.send("WebAuthn.setAutomaticPresenceSimulation", {
        authenticatorId: tab.authenticatorId,
        enabled: false,
      });
      await tab.page.evaluate(() => {
        const controller = new AbortController();
        const w = window as unknown as { cancel: AbortController; pending: Promise<unknown> };
        w.cancel = controller;
        w.pending = window.lk.signer.authenticate({ type: "passkey", signal: controller.signal }).then(
          () => ({ ok: true }),
          (e: Error & { code?: string }) => ({ ok: false, name: e.name, code: e.code, message: e.message }),
        );
      });
      await tab.page.waitForFunction(
        () => (window as unknown as { prompts: { get: number } }).prompts.get === 1,
      );
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("AUTHENTICATING_PASSKEY");
      const outcome = await tab.page.evaluate(() => {
        const w = window as unknown as { cancel: AbortController; pending: Promise<unknown> };
        w.cancel.abort();
        return w.pending;
      });
      expect(outcome).toEqual(CANCELLED);
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
    } finally {
      await tab.context.close();
    }
  });

  it("a page with no passkey for this site gets the cancel error from the browser", async () => {
    const tab = await openTab();
    try {
      expect(await authenticate(tab, { type: "passkey" })).toEqual({
        ...CANCELLED,
        causeName: "NotAllowedError",
      });
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
    } finally {
      await tab.context.close();
    }
  });

  it("without WebAuthn in the browser the error says so, and nothing is asked", async () => {
    const tab = await openTab();
    try {
      await tab.page.evaluate(() => {
        delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
      });
      const outcome = await authenticate(tab, { type: "passkey", createNew: true });
      expect(outcome).toEqual({
        ok: false,
        name: "PasskeyError",
        code: "WEBAUTHN_UNSUPPORTED",
        message: "Passkey registration needs browser WebAuthn support, which is not available here",
      });
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
      expect(await tab.prompts()).toEqual({ create: 0, get: 0 });
    } finally {
      await tab.context.close();
    }
  });
});

describe("managing passkeys in Chromium", () => {
  it("an email user adds a passkey, logs in with it elsewhere, then removes it", async () => {
    const email = "adds-a-passkey@example.com";
    const tab = await openTab();
    try {
      const sent = mailCount(h.svc, email);
      await tab.page.evaluate(
        (email) => window.lk.signer.authenticate({ type: "email", email, emailMode: "otp" }),
        email,
      );
      const code = await h.svc.otpCode(email, sent);
      const user = connected(
        (await tab.page.evaluate(
          (otpCode) =>
            window.lk.signer.authenticate({ type: "otp", otpCode }).then((r) => ({ ok: true, ...r })),
          code,
        )) as Outcome,
      );
      expect(await tab.page.evaluate(() => window.lk.signer.getPasskeyStatus())).toEqual({
        isPasskeyAdded: false,
        passkeys: [],
      });

      const before = Date.now();
      const authenticatorId = await tab.page.evaluate(() => window.lk.signer.addPasskey());
      expect(await tab.prompts()).toEqual({ create: 1, get: 0 });
      const status = await tab.page.evaluate(() => window.lk.signer.getPasskeyStatus());
      expect(status).toEqual({
        isPasskeyAdded: true,
        passkeys: [
          { authenticatorId, name: expect.stringMatching(/^passkey-\d+$/), createdAt: expect.any(Number) },
        ],
      });
      expect(Number(status.passkeys[0]?.name.slice(8))).toBeGreaterThanOrEqual(before);
      const [added] = await tab.credentials();
      expect(added).toMatchObject({ rpId: "localhost", isResidentCredential: true });

      // The authenticator already holds a passkey of this account: the new one is excluded.
      const again = await tab.page.evaluate(() =>
        window.lk.signer.addPasskey().then(
          () => "added",
          (e: Error & { code?: string }) => `${e.name}:${e.code}`,
        ),
      );
      expect(again).toBe("PasskeyError:PASSKEY_ALREADY_REGISTERED");
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("CONNECTED");
      expect((await tab.page.evaluate(() => window.lk.signer.getPasskeyStatus())).passkeys).toHaveLength(1);

      // Another browser holding that passkey signs in as this user.
      const other = await openTab([added as VirtualCredential]);
      try {
        const login = connected(await authenticate(other, { type: "passkey" }));
        expect(login).toMatchObject({
          address: user.address,
          email,
          credentialId: b64url(added?.credentialId as string),
        });
        expect(await other.prompts()).toEqual({ create: 0, get: 1 });
      } finally {
        await other.context.close();
      }

      await tab.page.evaluate((id) => window.lk.signer.removePasskey(id), authenticatorId);
      expect(await tab.page.evaluate(() => window.lk.signer.getPasskeyStatus())).toEqual({
        isPasskeyAdded: false,
        passkeys: [],
      });
      // The session it was added in is kept (DESIGN §9).
      expect(await tab.page.evaluate(() => window.lk.signer.status)).toBe("CONNECTED");

      const refused = await openTab([added as VirtualCredential]);
      try {
        expect(await authenticate(refused, { type: "passkey" })).toMatchObject({
          ok: false,
          name: "SignerApiError",
          code: "INVALID_STAMP",
          message: "This passkey is not registered",
        });
        expect(await refused.page.evaluate(() => window.lk.signer.status)).toBe("DISCONNECTED");
      } finally {
        await refused.context.close();
      }
    } finally {
      await tab.context.close();
    }
  });

  it("a passkey-only user cannot remove their last passkey; signed out, the calls need a user", async () => {
    const tab = await openTab();
    try {
      connected(await authenticate(tab, { type: "passkey", createNew: true }));
      const { passkeys } = await tab.page.evaluate(() => window.lk.signer.getPasskeyStatus());
      const outcome = await tab.page.evaluate(
        (id) =>
          window.lk.signer.removePasskey(id).then(
            () => "removed",
            (e: Error & { code?: string; status?: number }) => `${e.status}:${e.code}`,
          ),
        passkeys[0]?.authenticatorId as string,
      );
      expect(outcome).toBe("409:LAST_AUTH_METHOD");

      await tab.page.evaluate(() => window.lk.signer.disconnect());
      const signedOut = await tab.page.evaluate(() =>
        Promise.all(
          [() => window.lk.signer.addPasskey(), () => window.lk.signer.getPasskeyStatus()].map((call) =>
            call().then(
              () => "ok",
              (e: Error) => e.message,
            ),
          ),
        ),
      );
      expect(signedOut).toEqual(["Signer not authenticated", "Signer not authenticated"]);
      expect(await tab.prompts()).toEqual({ create: 1, get: 0 });
    } finally {
      await tab.context.close();
    }
  });
});
