import { OTP_LENGTH } from "@latchkey/protocol/constants";

export type OtpDigits = string[];

export const emptyOtp = (): OtpDigits => Array.from({ length: OTP_LENGTH }, () => "");

const DIGITS = /^\d+$/;

export type OtpInputResult =
  | { kind: "set"; digits: OtpDigits; focus: number }
  | { kind: "invalid" }
  | { kind: "ignore" };

/**
 * What typing or pasting `value` into box `index` does (spec §5): boxes are numeric; a full code in the
 * first box fills them all; a paste is cut to six digits; anything not numeric is refused (a paste of it
 * is reported as invalid so the modal can say so).
 */
export function applyOtpInput(
  digits: OtpDigits,
  index: number,
  value: string,
  pasted: boolean,
): OtpInputResult {
  const raw = pasted ? value.trim().slice(0, OTP_LENGTH) : value;
  if (raw === "") {
    const next = [...digits];
    next[index] = "";
    return { kind: "set", digits: next, focus: index };
  }
  if (!DIGITS.test(raw)) return pasted ? { kind: "invalid" } : { kind: "ignore" };
  if (raw.length >= OTP_LENGTH && (index === 0 || pasted)) {
    const all = raw.slice(-OTP_LENGTH).split("");
    return { kind: "set", digits: all, focus: OTP_LENGTH - 1 };
  }
  const next = [...digits];
  let i = index;
  // Typing into a filled box replaces its digit with the new one (the last character typed).
  const chars = pasted ? raw.split("") : [raw.slice(-1)];
  for (const c of chars) {
    if (i >= OTP_LENGTH) break;
    next[i] = c;
    i++;
  }
  return { kind: "set", digits: next, focus: Math.min(i, OTP_LENGTH - 1) };
}

/** Backspace clears the current box, or the previous one when the current is empty, and moves back. */
export function applyBackspace(digits: OtpDigits, index: number): { digits: OtpDigits; focus: number } {
  const next = [...digits];
  if (next[index]) {
    next[index] = "";
    return { digits: next, focus: Math.max(0, index - 1) };
  }
  const prev = Math.max(0, index - 1);
  next[prev] = "";
  return { digits: next, focus: prev };
}

export const isComplete = (digits: OtpDigits) =>
  digits.length === OTP_LENGTH && digits.every((d) => d !== "");
