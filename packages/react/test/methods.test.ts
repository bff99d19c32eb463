import type { Signer } from "@latchkey/core";
import { describe, expect, it, vi } from "vitest";
import { resolveUiConfig } from "../src/config";
import { AuthFlow } from "../src/flow/controller";
import { providerName, startOauth } from "../src/flow/oauth";
import { addPasskey, skipAddPasskey, startPasskey } from "../src/flow/passkey";
import { watchPasskeyOnSignup } from "../src/flow/passkeyOnSignup";
import { createAuthUiStore } from "../src/flow/store";
import type { UiConfig } from "../src/types";

// The passkey and social transitions of spec §4 over a fake signer: no DOM, no service.

type Listener = (payload: unknown) => void;

function fakeSigner() {
  const listeners = new Map<string, Set<Listener>>();
  const fake = {
    status: "DISCONNECTED",
    user: null as { credentialId?: string } | null,
    state: {} as { authLinkingStatus?: { email: string; idToken: string } },
    getState() {
      return fake.state;
    },
    on(event: string, listener: Listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    emit(event: string, payload?: unknown) {
      for (const l of [...(listeners.get(event) ?? [])]) l(payload);
    },
    /** Sets the status and tells the listeners, as the signer does. */
    setStatus(status: string) {
      fake.status = status;
      fake.emit("statusChanged", status);
    },
    authenticate: vi.fn(),
    addPasskey: vi.fn(),
    preparePopupOauth: vi.fn(),
    disconnect: vi.fn(async () => {}),
  };
  return fake;
}

function setup(ui: UiConfig = {}) {
  const signer = fakeSigner();
  const store = createAuthUiStore();
  const timers: { fn: () => void; ms: number }[] = [];
  const onAuthSuccess = vi.fn();
  const onEvent = vi.fn();
  const flow = new AuthFlow(
    signer as unknown as Signer,
    store,
    () => resolveUiConfig({ onAuthSuccess, onEvent, ...ui }),
    async () => "otp",
    (fn, ms) => timers.push({ fn, ms }),
  );
  store.setState({ isOpen: true });
  return { signer, store, flow, timers, onAuthSuccess, onEvent };
}

/** A sign-in that never settles on its own and rejects like the signer when its signal aborts. */
function pendingUntilAborted(params: { signal: AbortSignal }) {
  return new Promise((_, reject) =>
    params.signal.addEventListener("abort", () =>
      reject(Object.assign(new Error("aborted"), { name: "PasskeyCancelledError" })),
    ),
  );
}

describe("passkey sign-in (spec §4)", () => {
  it("passkey_verify while the prompt is up; success completes", async () => {
    const { signer, store, flow, onAuthSuccess } = setup();
    let resolve!: (v: unknown) => void;
    signer.authenticate.mockReturnValue(new Promise((r) => (resolve = r)));
    const done = startPasskey(flow, { createNew: true });
    expect(store.getState().step).toEqual({ type: "passkey_verify" });
    expect(signer.authenticate).toHaveBeenCalledWith({
      type: "passkey",
      createNew: true,
      signal: expect.any(AbortSignal),
    });
    resolve({ status: "CONNECTED" });
    await done;
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("a dismissed prompt returns to initial without an error; another failure stays with it", async () => {
    const { signer, store, flow } = setup();
    signer.authenticate.mockRejectedValueOnce(
      Object.assign(new Error("x"), { name: "PasskeyCancelledError" }),
    );
    await startPasskey(flow);
    expect(store.getState().step).toEqual({ type: "initial" });
    const failure = new Error("INVALID_STAMP");
    signer.authenticate.mockRejectedValueOnce(failure);
    await startPasskey(flow);
    expect(store.getState().step).toEqual({ type: "passkey_verify", error: failure });
  });

  it("leaving passkey_verify (Cancel, Back, Close) aborts the prompt and stays where the user went", async () => {
    const { signer, store, flow, onAuthSuccess } = setup();
    signer.authenticate.mockImplementation(pendingUntilAborted);
    const done = startPasskey(flow);
    flow.back();
    await done;
    expect(signer.authenticate.mock.calls[0]?.[0].signal.aborted).toBe(true);
    expect(store.getState().step).toEqual({ type: "initial" });
    expect(onAuthSuccess).not.toHaveBeenCalled();
  });
});

describe("add a passkey (spec §4)", () => {
  it("success: passkey_create_success, tracked, complete after 5000 ms", async () => {
    const { signer, store, flow, timers, onEvent, onAuthSuccess } = setup();
    signer.addPasskey.mockResolvedValue("authenticator-1");
    await addPasskey(flow);
    expect(store.getState().step.type).toBe("passkey_create_success");
    expect(onEvent).toHaveBeenCalledWith({ name: "add_passkey_on_signup_success" });
    expect(timers.map((t) => t.ms)).toEqual([5000]);
    timers[0]?.fn();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("failure stays on passkey_create with 'Failed to add passkey'; Skip is tracked and completes", async () => {
    const { signer, store, flow, onEvent, onAuthSuccess } = setup();
    signer.addPasskey.mockRejectedValue(new Error("NotAllowedError"));
    await addPasskey(flow);
    const step = store.getState().step;
    expect(step.type).toBe("passkey_create");
    expect(step.error?.message).toBe("Failed to add passkey");
    expect(onEvent).not.toHaveBeenCalled();
    skipAddPasskey(flow);
    expect(onEvent).toHaveBeenCalledWith({ name: "add_passkey_on_signup_skip" });
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("Close from passkey_create completes", () => {
    const { store, flow, onAuthSuccess } = setup();
    flow.go({ type: "passkey_create", status: "base" });
    flow.close();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });
});

describe("add-passkey-on-signup (spec §4)", () => {
  it("opens at passkey_create once the new user is connected and the modal closed; once per session", () => {
    const signer = fakeSigner();
    const store = createAuthUiStore();
    let enabled = true;
    const off = watchPasskeyOnSignup(signer as unknown as Signer, store, () => enabled);
    store.setState({ isOpen: true, step: { type: "otp_verify" } });
    signer.emit("newUserSignup");
    signer.user = {};
    signer.setStatus("CONNECTED");
    expect(store.getState().step.type).toBe("otp_verify");
    store.setState({ isOpen: false, step: { type: "initial" } });
    expect(store.getState()).toEqual({ isOpen: true, step: { type: "passkey_create", status: "base" } });

    // Not again in this session.
    store.setState({ isOpen: false, step: { type: "initial" } });
    signer.emit("newUserSignup");
    expect(store.getState().isOpen).toBe(false);

    // A disconnect resets it; a passkey user or the option off is not offered one.
    signer.emit("disconnected");
    signer.user = { credentialId: "cred" };
    signer.emit("newUserSignup");
    expect(store.getState().isOpen).toBe(false);
    signer.user = {};
    enabled = false;
    signer.emit("newUserSignup");
    expect(store.getState().isOpen).toBe(false);
    enabled = true;
    signer.emit("newUserSignup");
    expect(store.getState().step.type).toBe("passkey_create");
    off();
  });
});

describe("social sign-in (spec §4)", () => {
  const google = { type: "social", authProviderId: "google" } as const;

  it("pop-up: prepared in the click, oauth_completing with the config, success completes", async () => {
    const { signer, store, flow, onAuthSuccess } = setup();
    signer.authenticate.mockResolvedValue({ status: "CONNECTED" });
    const done = startOauth(flow, google);
    expect(signer.preparePopupOauth).toHaveBeenCalledTimes(1);
    expect(store.getState().step).toEqual({ type: "oauth_completing", config: { authProviderId: "google" } });
    expect(signer.authenticate).toHaveBeenCalledWith({
      type: "oauth",
      mode: "popup",
      authProviderId: "google",
      signal: expect.any(AbortSignal),
    });
    await done;
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("redirect: no pop-up; account linking goes to otp_verify with the provider's email", async () => {
    const { signer, store, flow } = setup();
    signer.authenticate.mockImplementation(async () => {
      signer.state.authLinkingStatus = { email: "grace@example.com", idToken: "t" };
      return { status: "AWAITING_OTP_AUTH" };
    });
    await startOauth(flow, { ...google, mode: "redirect" });
    expect(signer.preparePopupOauth).not.toHaveBeenCalled();
    expect(store.getState().step).toEqual({ type: "otp_verify", status: "base", email: "grace@example.com" });
  });

  it("a user cancel returns to initial; other errors stay on oauth_completing", async () => {
    const { signer, store, flow } = setup();
    signer.authenticate.mockRejectedValueOnce(
      Object.assign(new Error("OAuth cancelled"), { name: "OauthCancelledError" }),
    );
    await startOauth(flow, google);
    expect(store.getState().step).toEqual({ type: "initial" });
    const failure = new Error("access_denied");
    signer.authenticate.mockRejectedValueOnce(failure);
    await startOauth(flow, google);
    expect(store.getState().step).toEqual({
      type: "oauth_completing",
      config: { authProviderId: "google" },
      error: failure,
    });
  });

  it("names providers: displayName, the known name, else the id", () => {
    expect(providerName({ authProviderId: "google" })).toBe("Google");
    expect(providerName({ authProviderId: "auth0", displayName: "Acme SSO" })).toBe("Acme SSO");
    expect(providerName({ authProviderId: "custom" })).toBe("custom");
  });
});
