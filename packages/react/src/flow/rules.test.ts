import { describe, expect, it } from "vitest";
import { backTarget, closeTarget, footerKind, showsBack } from "./rules";

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
