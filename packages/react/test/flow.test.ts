import { MfaRequiredError, SignerApiError, SignerStatus } from "@latchkey/core";
import { describe, expect, it, vi } from "vitest";
import { fakeSigner, setup, withEmailMode } from "./fakeSigner";

describe("the step machine (spec §4)", () => {
  it("OTP mode shows the boxes at once, before the code is sent", async () => {
    let release: () => void = () => {};
    const signer = withEmailMode(fakeSigner(), "otp");
    signer.authenticate.mockImplementation(
      () => new Promise((r) => (release = () => r({ status: SignerStatus.AWAITING_OTP_AUTH }))),
    );
    const { transitions, store } = setup({}, signer);
    const sending = transitions.email.submit("ada@example.com");
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
    const ok = setup({}, withEmailMode(fakeSigner(), "magicLink"));
    await ok.transitions.email.submit("ada@example.com");
    expect(ok.store.getState().step).toMatchObject({ type: "email_verify", email: "ada@example.com" });

    const failing = withEmailMode(fakeSigner(), "magicLink");
    failing.authenticate.mockRejectedValue(new Error("Too many sign-in emails"));
    const bad = setup({}, failing);
    await bad.transitions.email.submit("ada@example.com");
    expect(bad.store.getState().step).toEqual({
      type: "initial",
      error: new Error("Too many sign-in emails"),
    });
  });

  it("asks the service's signer config for the email mode once, and again after a failure", async () => {
    const signer = fakeSigner();
    signer.client.signerConfig.mockRejectedValueOnce(new Error("offline"));
    const { transitions, store } = setup({}, signer);
    // Unknown mode: OTP, the default.
    await transitions.email.submit("ada@example.com");
    expect(store.getState().step.type).toBe("otp_verify");
    withEmailMode(signer, "magicLink");
    await transitions.email.submit("ada@example.com");
    await transitions.email.submit("ada@example.com");
    expect(store.getState().step.type).toBe("email_verify");
    expect(signer.client.signerConfig).toHaveBeenCalledTimes(2);
  });

  it("MFA on email auth goes to totp_verify with the first factor", async () => {
    const signer = withEmailMode(fakeSigner(), "magicLink");
    signer.authenticate.mockRejectedValue(
      new MfaRequiredError([{ multiFactorId: "f1", multiFactorType: "totp" }]),
    );
    const { transitions, store } = setup({}, signer);
    await transitions.email.submit("ada@example.com");
    expect(store.getState().step).toMatchObject({
      type: "totp_verify",
      previousStep: "magicLink",
      factorId: "f1",
    });
  });

  it("a right code: 'Verified!' (success), then complete after 1000 ms: closes and calls onAuthSuccess", async () => {
    const { transitions, store, onAuthSuccess, timers } = setup();
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    expect(await transitions.otp.submit("123456")).toBeNull();
    expect(store.getState().step).toMatchObject({ type: "otp_verify", status: "success" });
    expect(timers.map((t) => t.ms)).toEqual([1000]);
    expect(onAuthSuccess).not.toHaveBeenCalled();
    timers[0]?.fn();
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("a wrong code: the OTP-invalid text, status back to base", async () => {
    const signer = fakeSigner();
    signer.authenticate.mockRejectedValue(
      new SignerApiError({
        status: 400,
        path: "/v1/otp",
        responseText: '{"error":"invalid OTP code","code":"INVALID_OTP"}',
      }),
    );
    const { transitions, store } = setup({}, signer);
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    expect(await transitions.otp.submit("000000")).toBe("The code you entered is incorrect");
    expect(store.getState().step).toEqual({
      type: "otp_verify",
      email: "ada@example.com",
      status: "base",
      error: new Error("The code you entered is incorrect"),
    });
  });

  it("an OTP that needs MFA goes to totp_verify (previousStep otp)", async () => {
    const signer = fakeSigner();
    signer.authenticate.mockResolvedValue({ status: SignerStatus.AWAITING_MFA_AUTH, user: null });
    signer.state.mfaStatus = { mfaRequired: true, mfaFactorId: "f9" };
    const { transitions, store } = setup({}, signer);
    store.setState({ step: { type: "otp_verify", email: "ada@example.com", status: "base" } });
    await transitions.otp.submit("123456");
    expect(store.getState().step).toMatchObject({ type: "totp_verify", previousStep: "otp", factorId: "f9" });
  });

  it("TOTP: a right code completes; a wrong one shows the OTP-invalid text, others the generic text", async () => {
    const signer = fakeSigner();
    const { transitions, store, onAuthSuccess } = setup({}, signer);
    const totp = { type: "totp_verify", previousStep: "otp", email: "a@b.co", factorId: "f9" } as const;
    store.setState({ step: totp });
    signer.validateMultiFactors.mockRejectedValueOnce(
      new SignerApiError({
        status: 400,
        path: "/v1/auth-validate-multi-factors",
        responseText: '{"error":"Invalid MFA code","code":"INVALID_MFA_CODE"}',
      }),
    );
    expect(await transitions.totp.submit("000000")).toBe("The code you entered is incorrect");
    signer.validateMultiFactors.mockRejectedValueOnce(new Error("network down"));
    expect(await transitions.totp.submit("000000")).toBe("An error occurred while verifying the code");
    expect(store.getState().step).toMatchObject({ type: "totp_verify", status: "base" });
    expect(await transitions.totp.submit("123456")).toBeNull();
    expect(signer.validateMultiFactors).toHaveBeenLastCalledWith({
      multiFactorCode: "123456",
      multiFactorId: "f9",
    });
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("TOTP after a magic link sends the link again with the code, then waits for the mail", async () => {
    const { transitions, store, signer } = setup();
    store.setState({
      step: { type: "totp_verify", previousStep: "magicLink", email: "a@b.co", factorId: "f1" },
    });
    expect(await transitions.totp.submit("123456")).toBeNull();
    expect(signer.authenticate).toHaveBeenCalledWith({
      type: "email",
      email: "a@b.co",
      emailMode: "magicLink",
      multiFactors: [{ multiFactorId: "f1", multiFactorCode: "123456" }],
    });
    expect(store.getState().step).toEqual({ type: "email_verify", email: "a@b.co", status: "base" });
  });

  it("opens at email_completing while a magic link completes; it completes once connected", () => {
    const signer = fakeSigner();
    signer.status = SignerStatus.AUTHENTICATING_EMAIL;
    const { store, onAuthSuccess, transitions } = setup({}, signer);
    expect(transitions.navigation.initialStep()).toEqual({ type: "email_completing" });
    transitions.navigation.opened();
    expect(store.getState().step).toEqual({ type: "email_completing" });
    transitions.navigation.connected();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });

  it("back and close follow spec §2", () => {
    const { store, onAuthSuccess, transitions } = setup();
    store.setState({ step: { type: "otp_verify", email: "a@b.co" } });
    transitions.navigation.back();
    expect(store.getState()).toEqual({ isOpen: true, step: { type: "initial" } });
    store.setState({
      step: {
        type: "wallet_connect",
        connector: { id: "walletConnect", name: "WalletConnect", type: "walletConnect" },
      },
    });
    transitions.navigation.back();
    expect(store.getState().step.type).toBe("pick_eoa");
    store.setState({ step: { type: "otp_verify", email: "a@b.co" } });
    transitions.navigation.close();
    expect(store.getState()).toEqual({ isOpen: false, step: { type: "initial" } });
    expect(onAuthSuccess).not.toHaveBeenCalled();
    store.setState({ isOpen: true, step: { type: "passkey_create" } });
    transitions.navigation.close();
    expect(store.getState().isOpen).toBe(false);
    expect(onAuthSuccess).toHaveBeenCalledTimes(1);
  });
});
