import { describe, expect, it } from "vitest";
import { resolveUiConfig } from "../src/config";
import { validateEmail } from "../src/flow/email";
import { otpErrorText, totpErrorText } from "../src/flow/errors";
import { backTarget, closeTarget, footerKind, showsBack } from "../src/flow/rules";

describe("chrome rules (spec §2)", () => {
  it("back is shown on the verify, create and wallet steps", () => {
    expect(showsBack("initial")).toBe(false);
    expect(showsBack("complete")).toBe(false);
    for (const step of [
      "email_verify",
      "otp_verify",
      "totp_verify",
      "passkey_verify",
      "passkey_create",
    ] as const)
      expect(showsBack(step)).toBe(true);
    for (const step of ["pick_eoa", "eoa_connect", "wallet_connect"] as const)
      expect(showsBack(step)).toBe(true);
  });

  it("back: wallet steps to pick_eoa, everything else to initial", () => {
    expect(backTarget("otp_verify")).toBe("initial");
    expect(backTarget("oauth_completing")).toBe("initial");
    expect(backTarget("passkey_create")).toBe("initial");
    expect(backTarget("wallet_connect")).toBe("pick_eoa");
    expect(backTarget("eoa_connect")).toBe("pick_eoa");
    expect(backTarget("pick_eoa")).toBe("initial");
  });

  it("close: passkey_create ends in complete, the rest in initial", () => {
    expect(closeTarget("passkey_create")).toBe("complete");
    expect(closeTarget("otp_verify")).toBe("initial");
    expect(closeTarget("email_verify")).toBe("initial");
  });

  it("footer by step; support only with a support URL, on passkey and OAuth steps", () => {
    expect(footerKind("initial", "")).toBe("terms");
    expect(footerKind("email_verify", "")).toBe("resend");
    expect(footerKind("otp_verify", "https://help")).toBe("resend");
    expect(footerKind("passkey_verify", "")).toBe("none");
    expect(footerKind("passkey_verify", "https://help")).toBe("support");
    expect(footerKind("oauth_completing", "https://help")).toBe("support");
    expect(footerKind("totp_verify", "https://help")).toBe("none");
    expect(footerKind("complete", "https://help")).toBe("none");
  });
});

describe("texts", () => {
  it("maps the service's 'invalid OTP code' to the OTP-invalid text, other messages as they are", () => {
    expect(otpErrorText(new Error("invalid OTP code"))).toBe("The code you entered is incorrect");
    expect(otpErrorText(new Error('{"error":"invalid OTP code","code":"INVALID_OTP"}'))).toBe(
      "The code you entered is incorrect",
    );
    expect(otpErrorText(new Error("Too many attempts"))).toBe("Too many attempts");
    expect(totpErrorText(new Error("Invalid MFA code"))).toBe("The code you entered is incorrect");
    expect(totpErrorText(new Error("boom"))).toBe("An error occurred while verifying the code");
  });

  it("email validation", () => {
    expect(validateEmail("ada@example.com")).toBeUndefined();
    expect(validateEmail("ada@example")).toBe("Must provide a valid email.");
    expect(validateEmail("")).toBe("Must provide a valid email.");
    expect(validateEmail("", true)).toBeUndefined();
  });

  it("default UI config (spec §2)", () => {
    expect(resolveUiConfig()).toEqual({
      illustrationStyle: "flat",
      sections: [[{ type: "email" }], [{ type: "passkey" }]],
      supportUrl: "",
      addPasskeyOnSignup: false,
    });
  });
});
