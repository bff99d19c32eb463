import { describe, expect, it, vi } from "vitest";
import { setup, signalOf } from "./fakeSigner";

// The passkey and social transitions of spec §4, and the triggers, over a fake signer: no DOM, no service.

/** A sign-in that never settles on its own and rejects like the signer when its signal aborts. */
function pendingUntilAborted(params: Record<string, unknown>): Promise<unknown> {
  const signal = params.signal as AbortSignal;
  return new Promise((_, reject) =>
    signal.addEventListener("abort", () =>
      reject(Object.assign(new Error("aborted"), { name: "PasskeyCancelledError" })),
    ),
  );
}

describe("passkey sign-in (spec §4)", () => {
  it("passkey_verify while the prompt is up; success completes", async () => {
    const { signer, store, transitions, onAuthSuccess } = setup();
    let resolve!: (v: unknown) => void;
    signer.authenticate.mockReturnValue(new Promise((r) => (resolve = r)));
    const done = transitions.passkey.start({ createNew: true });
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
    const { signer, store, transitions } = setup();
    signer.authenticate.mockRejectedValueOnce(
      Object.assign(new Error("x"), { name: "PasskeyCancelledError" }),
    );
    await transitions.passkey.start();
    expect(store.getState().step).toEqual({ type: "initial" });
    const failure = new Error("INVALID_STAMP");
    signer.authenticate.mockRejectedValueOnce(failure);
    await transitions.passkey.start();
    expect(store.getState().step).toEqual({ type: "passkey_verify", error: failure });
  });

  it("the error view's transition disconnects the signer; Try again repeats the last request", async () => {
    const { signer, store, transitions } = setup();
    signer.status = "AUTHENTICATING_PASSKEY";
    signer.authenticate.mockRejectedValueOnce(new Error("INVALID_STAMP"));
    await transitions.passkey.start({ createNew: true });
    expect(signer.disconnect).toHaveBeenCalledTimes(1);
    signer.authenticate.mockResolvedValueOnce({ status: "CONNECTED" });
    await transitions.passkey.retry();
    expect(signer.authenticate).toHaveBeenLastCalledWith({
      type: "passkey",
      createNew: true,
      signal: expect.any(AbortSignal),
    });
    expect(store.getState().isOpen).toBe(false);
  });

  it("leaving passkey_verify (Cancel, Back, Close) aborts the prompt and stays where the user went", async () => {
    const { signer, store, transitions, onAuthSuccess } = setup();
    signer.authenticate.mockImplementation(pendingUntilAborted);
    const done = transitions.passkey.start();
    transitions.navigation.back();
    await done;
    expect(signalOf(signer, 0)?.aborted).toBe(true);
    expect(store.getState().step).toEqual({ type: "initial" });
    expect(onAuthSuccess).not.toHaveBeenCalled();
    expect(signer.disconnect).not.toHaveBeenCalled();
  });

  it("a new attempt aborts the one in flight", async () => {
    const { signer, store, transitions } = setup();
    signer.authenticate.mockImplementationOnce(pendingUntilAborted);
    const first = transitions.passkey.start();
    signer.authenticate.mockResolvedValueOnce({ status: "CONNECTED" });
    await transitions.passkey.start({ createNew: true });
    await first;
    expect(signalOf(signer, 0)?.aborted).toBe(true);
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
  });
});

describe("add a passkey (spec §4)", () => {
  it("success: passkey_create_success, tracked, complete after 5000 ms", async () => {
    const { signer, store, transitions, timers, onEvent, onAuthSuccess } = setup();
    signer.addPasskey.mockResolvedValue("authenticator-1");
    await transitions.passkeyOnSignup.add();
    expect(store.getState().step.type).toBe("passkey_create_success");
    expect(onEvent).toHaveBeenCalledWith({ name: "add_passkey_on_signup_success" });
    expect(timers.map((t) => t.ms)).toEqual([5000]);
    timers[0]?.fn();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("failure stays on passkey_create with 'Failed to add passkey', signed in; Skip is tracked and completes", async () => {
    const { signer, store, transitions, onEvent, onAuthSuccess } = setup();
    signer.status = "CONNECTED";
    signer.addPasskey.mockRejectedValue(new Error("NotAllowedError"));
    await transitions.passkeyOnSignup.add();
    const step = store.getState().step;
    expect(step).toMatchObject({ type: "passkey_create", status: "base" });
    expect(step.type === "passkey_create" && step.error?.message).toBe("Failed to add passkey");
    expect(signer.disconnect).not.toHaveBeenCalled();
    expect(onEvent).not.toHaveBeenCalled();
    transitions.passkeyOnSignup.skip();
    expect(onEvent).toHaveBeenCalledWith({ name: "add_passkey_on_signup_skip" });
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("Close from passkey_create completes", () => {
    const { store, onAuthSuccess, transitions } = setup();
    store.setState({ step: { type: "passkey_create", status: "base" } });
    transitions.navigation.close();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });
});

describe("the triggers (spec §4)", () => {
  it("add-passkey-on-signup: opens at passkey_create once the new user is connected and the modal closed; once per session", () => {
    let enabled = true;
    const { signer, store, flow } = setup({
      get addPasskeyOnSignup() {
        return enabled;
      },
    });
    const release = flow.holdTriggers();
    store.setState({ isOpen: true, step: { type: "otp_verify", email: "a@b.co" } });
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
    release();
  });

  it("an account-linking prompt opens the modal at otp_verify with the provider's email", async () => {
    const { signer, store, flow } = setup();
    store.setState({ isOpen: false });
    const release = flow.holdTriggers();
    signer.emit("emailAuthLinkingRequired", { email: "grace@example.com" });
    expect(store.getState()).toEqual({
      isOpen: true,
      step: { type: "otp_verify", email: "grace@example.com", status: "base" },
    });
    release();
  });

  it("embedded mode: a linking prompt and the passkey offer move the inline card, never open the dialog", async () => {
    const { signer, store, flow } = setup({ mode: "embedded", addPasskeyOnSignup: true });
    store.setState({ isOpen: false });
    const release = flow.holdTriggers();
    signer.emit("emailAuthLinkingRequired", { email: "grace@example.com" });
    expect(store.getState()).toEqual({
      isOpen: false,
      step: { type: "otp_verify", email: "grace@example.com", status: "base" },
    });
    // The offer waits for the card to be back at its first step (the sign-in's 'Verified!' ends first).
    signer.emit("newUserSignup");
    signer.user = {};
    signer.setStatus("CONNECTED");
    expect(store.getState().step.type).toBe("otp_verify");
    store.setState({ step: { type: "initial" } });
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "passkey_create", status: "base" } });
    release();
  });

  it("on load: a pending linking prompt opens the modal; a social sign-in error is the initial step's", async () => {
    const linking = setup();
    linking.store.setState({ isOpen: false });
    linking.signer.status = "AWAITING_OTP_AUTH";
    linking.signer.state.authLinkingStatus = { email: "grace@example.com", idToken: "t" };
    const releaseLinking = linking.flow.holdTriggers();
    await vi.waitFor(() => expect(linking.store.getState().isOpen).toBe(true));
    expect(linking.store.getState().step).toMatchObject({ type: "otp_verify", email: "grace@example.com" });
    releaseLinking();

    const failed = setup();
    failed.store.setState({ isOpen: false });
    failed.signer.state.error = { name: "AuthError", message: "Access denied by the user" };
    const releaseFailed = failed.flow.holdTriggers();
    await vi.waitFor(() => expect(failed.store.getState().step).toMatchObject({ type: "initial" }));
    await vi.waitFor(() =>
      expect(failed.store.getState().step).toEqual({
        type: "initial",
        error: new Error("Access denied by the user"),
      }),
    );
    expect(failed.store.getState().isOpen).toBe(false);
    expect(failed.transitions.navigation.initialStep()).toBe(failed.store.getState().step);
    releaseFailed();
  });

  it("registered once however many hold them; released when the last lets go", () => {
    const { signer, store, flow } = setup();
    store.setState({ isOpen: false });
    const releaseModal = flow.holdTriggers();
    const releaseCard = flow.holdTriggers();
    expect(signer.init).toHaveBeenCalledTimes(1);
    releaseModal();
    releaseModal();
    signer.emit("emailAuthLinkingRequired", { email: "a@b.co" });
    expect(store.getState().isOpen).toBe(true);
    store.setState({ isOpen: false, step: { type: "initial" } });
    releaseCard();
    signer.emit("emailAuthLinkingRequired", { email: "a@b.co" });
    expect(store.getState().isOpen).toBe(false);
  });
});

describe("social sign-in (spec §4)", () => {
  const google = { type: "social", authProviderId: "google" } as const;

  it("pop-up: prepared in the click, oauth_completing with the config, success completes", async () => {
    const { signer, store, transitions, onAuthSuccess } = setup();
    signer.authenticate.mockResolvedValue({ status: "CONNECTED" });
    const done = transitions.oauth.start(google);
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
    const { signer, store, transitions } = setup();
    signer.authenticate.mockImplementation(async () => {
      signer.state.authLinkingStatus = { email: "grace@example.com", idToken: "t" };
      return { status: "AWAITING_OTP_AUTH" };
    });
    await transitions.oauth.start({ ...google, mode: "redirect" });
    expect(signer.preparePopupOauth).not.toHaveBeenCalled();
    expect(store.getState().step).toEqual({ type: "otp_verify", status: "base", email: "grace@example.com" });
  });

  it("a user cancel returns to initial; other errors stay on oauth_completing and disconnect", async () => {
    const { signer, store, transitions } = setup();
    signer.status = "AUTHENTICATING_OAUTH";
    signer.authenticate.mockRejectedValueOnce(
      Object.assign(new Error("OAuth cancelled"), { name: "OauthCancelledError" }),
    );
    await transitions.oauth.start(google);
    expect(store.getState().step).toEqual({ type: "initial" });
    expect(signer.disconnect).not.toHaveBeenCalled();
    const failure = new Error("access_denied");
    signer.authenticate.mockRejectedValueOnce(failure);
    await transitions.oauth.start(google);
    expect(store.getState().step).toEqual({
      type: "oauth_completing",
      config: { authProviderId: "google" },
      error: failure,
    });
    expect(signer.disconnect).toHaveBeenCalledTimes(1);
  });

  it("Try again repeats the last section (its mode too); leaving the step cancels the pop-up", async () => {
    const { signer, store, transitions } = setup();
    signer.authenticate.mockRejectedValueOnce(new Error("access_denied"));
    await transitions.oauth.start({ ...google, mode: "redirect" });
    signer.authenticate.mockImplementationOnce(pendingUntilAborted);
    const retried = transitions.oauth.retry({ authProviderId: "google" });
    expect(signer.authenticate).toHaveBeenLastCalledWith({
      type: "oauth",
      mode: "redirect",
      authProviderId: "google",
      signal: expect.any(AbortSignal),
    });
    transitions.navigation.close();
    await retried;
    expect(signalOf(signer, 1)?.aborted).toBe(true);
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
  });
});
