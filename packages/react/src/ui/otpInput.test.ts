import { describe, expect, it } from "vitest";
import { applyBackspace, applyOtpInput, emptyOtp, isComplete } from "./otpInput";

const digits = (s: string) => s.split("").map((c) => (c === "_" ? "" : c));

describe("OTP boxes (spec §5)", () => {
  it("a digit typed into a box fills it and moves on", () => {
    expect(applyOtpInput(emptyOtp(), 0, "4", false)).toEqual({
      kind: "set",
      digits: digits("4_____"),
      focus: 1,
    });
    // Typing into a filled box keeps the last character typed.
    expect(applyOtpInput(digits("12____"), 1, "29", false)).toEqual({
      kind: "set",
      digits: digits("19____"),
      focus: 2,
    });
  });

  it("boxes are numeric: a letter typed is ignored, a pasted one is reported invalid", () => {
    expect(applyOtpInput(emptyOtp(), 2, "a", false)).toEqual({ kind: "ignore" });
    expect(applyOtpInput(emptyOtp(), 0, "12ab56", true)).toEqual({ kind: "invalid" });
  });

  it("a full code typed or pasted into the first box fills every box", () => {
    expect(applyOtpInput(emptyOtp(), 0, "123456", false)).toEqual({
      kind: "set",
      digits: digits("123456"),
      focus: 5,
    });
    expect(applyOtpInput(emptyOtp(), 0, " 654321 ", true)).toMatchObject({ digits: digits("654321") });
  });

  it("a paste is cut to six digits", () => {
    expect(applyOtpInput(emptyOtp(), 0, "12345678", true)).toMatchObject({ digits: digits("123456") });
    expect(applyOtpInput(emptyOtp(), 3, "987", true)).toEqual({
      kind: "set",
      digits: digits("___987"),
      focus: 5,
    });
  });

  it("Backspace clears the current box and moves back", () => {
    expect(applyBackspace(digits("123___"), 2)).toEqual({ digits: digits("12____"), focus: 1 });
    expect(applyBackspace(digits("12____"), 2)).toEqual({ digits: digits("1_____"), focus: 1 });
    expect(applyBackspace(emptyOtp(), 0)).toEqual({ digits: emptyOtp(), focus: 0 });
  });

  it("complete only with six non-empty digits", () => {
    expect(isComplete(digits("12345_"))).toBe(false);
    expect(isComplete(digits("123456"))).toBe(true);
  });
});
