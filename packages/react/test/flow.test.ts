import { MfaRequiredError, type Signer, SignerApiError, SignerStatus } from "@latchkey/core";
import { describe, expect, it, vi } from "vitest";
import { resolveUiConfig } from "../src/config";
import { AuthFlow, type EmailMode } from "../src/flow/controller";
import { createAuthUiStore } from "../src/flow/store";

/** A signer double: only what the step machine calls, with answers set per test. */
function fakeSigner(answers: { authenticate?: (p: { type: string }) => Promise<unknown> } = {}) {
  const state = { status: SignerStatus.DISCONNECTED as string, mfaStatus: { mfaRequired: false } };
  const signer = {
    get status() {
      return state.status;
    },
    getState: () => state,
    authenticate: vi.fn(
      answers.authenticate ?? (async () => ({ status: SignerStatus.CONNECTED, user: null })),
    ),
    validateMultiFactors: vi.fn(async () => ({})),
  };
  return { signer, state };
}

function setup(mode: EmailMode, signer: object) {
  const store = createAuthUiStore();
  store.setState({ isOpen: true });
  const onAuthSuccess = vi.fn();
  const timers: { fn: () => void; ms: number }[] = [];
  const flow = new AuthFlow(
    signer as unknown as Signer,
    store,
    () => resolveUiConfig({ onAuthSuccess }),
    async () => mode,
    (fn, ms) => timers.push({ fn, ms }),
  );
  return { flow, store, onAuthSuccess, timers };
}

describe("the step machine (spec §4)", () => {
  it("OTP mode shows the boxes at once, before the code is sent", async () => {
    let release: () => void = () => {};
    const { signer } = fakeSigner({
      authenticate: () => new Promise((r) => (release = () => r({ status: SignerStatus.AWAITING_OTP_AUTH }))),
    });
    const { flow, store } = setup("otp", signer);
    const sending = flow.submitEmail("ada@example.com");
    await vi.waitFor(() => expect(store.getState().step.type).toBe("otp_verify"));
    expect(store.getState().step).toMatchObject({ email: "ada@example.com", status: "base" });
    expect(signer.authenticate).toHaveBeenCalledWith({
      type: "email",
      email: "ada@example.com",
      emailMode: "otp",
    });
    release();
    await sending;
    expect(store.getState().step.type).toBe("otp_verify");
  });

  it("magic-link mode goes to email_verify once the link is sent; a failure goes back to initial", async () => {
    const ok = setup("magicLink", fakeSigner().signer);
    await ok.flow.submitEmail("ada@example.com");
    expect(ok.store.getState().step).toMatchObject({ type: "email_verify", email: "ada@example.com" });

    const failing = fakeSigner({
      authenticate: async () => Promise.reject(new Error("Too many sign-in emails")),
    });
    const bad = setup("magicLink", failing.signer);
    await bad.flow.submitEmail("ada@example.com");
    expect(bad.store.getState().step.type).toBe("initial");
    expect(bad.store.getState().step.error?.message).toBe("Too many sign-in emails");
  });

  it("MFA on email auth goes to totp_verify with the first factor", async () => {
    const { signer } = fakeSigner({
      authenticate: async () =>
        Promise.reject(new MfaRequiredError([{ multiFactorId: "f1", multiFactorType: "totp" }])),
    });
    const { flow, store } = setup("magicLink", signer);
    await flow.submitEmail("ada@example.com");
    expect(store.getState().step).toMatchObject({
      type: "totp_verify",
      previousStep: "magicLink",
      factorId: "f1",
    });
  });

  it("a right code: 'Verified!' (success), then complete after 1000 ms: closes and calls onAuthSuccess", async () => {
    const { flow, store, onAuthSuccess, timers } = setup("otp", fakeSigner().signer);
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    expect(await flow.submitOtp("123456")).toBeNull();
    expect(store.getState().step.status).toBe("success");
    expect(timers.map((t) => t.ms)).toEqual([1000]);
    expect(onAuthSuccess).not.toHaveBeenCalled();
    timers[0]?.fn();
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("a wrong code: the OTP-invalid text, status back to base", async () => {
    const { signer } = fakeSigner({
      authenticate: async () =>
        Promise.reject(
          new SignerApiError({
            status: 400,
            path: "/v1/otp",
            responseText: '{"error":"invalid OTP code","code":"INVALID_OTP"}',
          }),
        ),
    });
    const { flow, store } = setup("otp", signer);
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    expect(await flow.submitOtp("000000")).toBe("The code you entered is incorrect");
    expect(store.getState().step).toMatchObject({ type: "otp_verify", status: "base" });
    expect(store.getState().step.error?.message).toBe("The code you entered is incorrect");
  });

  it("an OTP that needs MFA goes to totp_verify (previousStep otp)", async () => {
    const { signer, state } = fakeSigner({
      authenticate: async () => ({ status: SignerStatus.AWAITING_MFA_AUTH, user: null }),
    });
    state.mfaStatus = { mfaRequired: true, mfaFactorId: "f9" } as typeof state.mfaStatus;
    const { flow, store } = setup("otp", signer);
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    await flow.submitOtp("123456");
    expect(store.getState().step).toMatchObject({ type: "totp_verify", previousStep: "otp", factorId: "f9" });
  });

  it("opens at email_completing while a magic link completes; it completes once connected", () => {
    const { signer, state } = fakeSigner();
    state.status = SignerStatus.AUTHENTICATING_EMAIL;
    const { flow, store, onAuthSuccess } = setup("magicLink", signer);
    expect(flow.initialStep()).toEqual({ type: "email_completing" });
    flow.go(flow.initialStep());
    flow.onConnected();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("back and close follow spec §2", () => {
    const { flow, store, onAuthSuccess } = setup("otp", fakeSigner().signer);
    flow.go({ type: "otp_verify", email: "a@b.co" });
    flow.back();
    expect(store.getState()).toEqual({ isOpen: true, step: { type: "initial" } });
    flow.go({ type: "wallet_connect" });
    flow.back();
    expect(store.getState().step.type).toBe("pick_eoa");
    flow.go({ type: "otp_verify", email: "a@b.co" });
    flow.close();
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
    expect(onAuthSuccess).not.toHaveBeenCalled();
    store.setState({ isOpen: true, step: { type: "passkey_create" } });
    flow.close();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });
});
