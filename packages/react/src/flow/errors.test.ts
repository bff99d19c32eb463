import { MfaRequiredError, SignerApiError } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { de } from "../texts/de";
import { enTexts } from "../texts/en";
import * as errors from "./errors";

const errorText = (e: unknown) => errors.errorText(e, enTexts);
const otpErrorText = (e: unknown) => errors.otpErrorText(e, enTexts);
const totpErrorText = (e: unknown) => errors.totpErrorText(e, enTexts);

const apiError = (code: string, error: string) =>
  new SignerApiError({ status: 400, path: "/v1/otp", responseText: JSON.stringify({ error, code }) });

describe("error texts (spec §8), by the error's code", () => {
  it("a wrong email code or authenticator code is the OTP-invalid text; other OTP failures as they are", () => {
    expect(otpErrorText(apiError("INVALID_OTP", "invalid OTP code"))).toBe(
      "The code you entered is incorrect",
    );
    expect(otpErrorText(apiError("INVALID_MFA_CODE", "Invalid MFA code"))).toBe(
      "The code you entered is incorrect",
    );
    expect(otpErrorText(apiError("OTP_ATTEMPTS_EXCEEDED", "Too many attempts"))).toBe("Too many attempts");
  });

  it("a wrong authenticator code is the OTP-invalid text; any other TOTP failure the generic text", () => {
    expect(totpErrorText(apiError("INVALID_MFA_CODE", "Invalid MFA code"))).toBe(
      "The code you entered is incorrect",
    );
    expect(totpErrorText(apiError("MFA_LOCKED", "Too many wrong codes"))).toBe(
      "An error occurred while verifying the code",
    );
    expect(totpErrorText(new Error("boom"))).toBe("An error occurred while verifying the code");
  });

  it("the signer state's error ({name, code, message}) classifies the same way", () => {
    expect(otpErrorText({ name: "SignerApiError", code: "INVALID_OTP", message: "invalid OTP code" })).toBe(
      "The code you entered is incorrect",
    );
  });

  it("never by the message: the same text without the code is shown as it is", () => {
    expect(otpErrorText(new Error("invalid OTP code"))).toBe("invalid OTP code");
    expect(totpErrorText(new Error("Invalid MFA code"))).toBe("An error occurred while verifying the code");
  });

  it("other errors show their message (a service error's message is the service's own)", () => {
    expect(errorText(apiError("RATE_LIMITED", "Too many sign-in emails"))).toBe("Too many sign-in emails");
    expect(errorText(new MfaRequiredError([]))).toBe("MFA is required for this user");
    expect(errorText("plain")).toBe("plain");
  });

  it("in another locale: the code's text where the locale has one, the service's message otherwise", () => {
    expect(errors.otpErrorText(apiError("INVALID_OTP", "invalid OTP code"), de.texts)).toBe(
      "Der eingegebene Code ist falsch",
    );
    expect(errors.errorText(apiError("RATE_LIMITED", "Too many sign-in emails"), de.texts)).toBe(
      "Zu viele Versuche. Bitte warte einen Moment und versuche es erneut.",
    );
    expect(errors.errorText(apiError("USER_EXISTS", "exists"), de.texts)).toBe("exists");
    expect(errors.totpErrorText(new Error("boom"), de.texts)).toBe(
      "Beim Prüfen des Codes ist ein Fehler aufgetreten",
    );
  });
});

describe("which error view a failure shows (spec §8)", () => {
  const answer = (status: number, body: string) =>
    new SignerApiError({ status, path: "/v1/otp", responseText: body });
  it("unreachable: the browser's fetch failed, or a proxy said the service is down", () => {
    expect(errors.failureOf(new TypeError("Failed to fetch"))).toBe("connection");
    expect(errors.failureOf(answer(502, "<html>Bad gateway</html>"))).toBe("connection");
    expect(errors.failureOf(answer(503, ""))).toBe("connection");
    expect(errors.failureOf(answer(504, "Gateway Timeout"))).toBe("connection");
  });
  it("an expired code is the timeout; the service's refusals are 'Permission denied'", () => {
    expect(errors.failureOf(apiError("OTP_EXPIRED", "OTP expired"))).toBe("timeout");
    for (const code of ["RATE_LIMITED", "FORBIDDEN", "MFA_LOCKED", "ORIGIN_NOT_ALLOWED"])
      expect(errors.failureOf(apiError(code, "no"))).toBe("permission");
  });
  it("a wrong code and anything else stay inline", () => {
    expect(errors.failureOf(apiError("INVALID_OTP", "invalid OTP code"))).toBeUndefined();
    expect(errors.failureOf(answer(500, JSON.stringify({ code: "INTERNAL", error: "x" })))).toBeUndefined();
    expect(errors.failureOf(new Error("boom"))).toBeUndefined();
  });
});
