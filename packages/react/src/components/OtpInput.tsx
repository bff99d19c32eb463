import { useEffect, useRef, useState } from "react";
import { useTexts } from "../texts/useTexts";
import { applyBackspace, applyOtpInput, emptyOtp, isComplete, type OtpDigits } from "../ui/otpInput";

/**
 * Six single-digit boxes (spec §5). The sixth digit submits; `onSubmit` answers an error text to show
 * (the boxes then clear) or null.
 */
export function OtpInput({
  onSubmit,
  onInvalid,
  disabled,
  error,
  status,
}: {
  onSubmit: (code: string) => Promise<string | null>;
  onInvalid: (text: string) => void;
  disabled?: boolean;
  error?: boolean;
  status?: string;
}) {
  const texts = useTexts();
  const [digits, setDigits] = useState<OtpDigits>(emptyOtp);
  // A failed check (verifying → base with an error) clears the boxes in the same render that shows the
  // error, so the user never sees the wrong code next to the message.
  const [seenStatus, setSeenStatus] = useState(status);
  if (status !== seenStatus) {
    setSeenStatus(status);
    if (seenStatus === "verifying" && status === "base" && error) setDigits(emptyOtp());
  }
  const refs = useRef<(HTMLInputElement | null)[]>([]);
  const focus = (i: number) => refs.current[i]?.focus();

  useEffect(() => {
    refs.current[0]?.focus();
  }, []);

  const update = (next: OtpDigits, focusAt: number) => {
    setDigits(next);
    if (isComplete(next)) {
      void onSubmit(next.join("")).then((failed) => {
        if (failed !== null) {
          setDigits(emptyOtp());
          // Wait for the boxes to be enabled again before focusing the first.
          setTimeout(() => focus(0));
        }
      });
    } else focus(focusAt);
  };

  const apply = (index: number, value: string, pasted: boolean) => {
    const result = applyOtpInput(digits, index, value, pasted);
    if (result.kind === "invalid") onInvalid(texts.otpInvalid);
    if (result.kind === "set") update(result.digits, result.focus);
  };

  return (
    <fieldset className="lk-otp" data-error={error} data-status={status} style={{ border: 0 }}>
      <legend className="lk-sr">{texts.verificationCode}</legend>
      {digits.map((digit, i) => (
        <input
          // The boxes are fixed: their index is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: six fixed boxes
          key={i}
          ref={(el) => {
            refs.current[i] = el;
          }}
          value={digit}
          inputMode="numeric"
          autoComplete={i === 0 ? "one-time-code" : "off"}
          pattern="[0-9]*"
          aria-label={texts.otpDigit(i + 1)}
          disabled={disabled}
          onChange={(e) => apply(i, e.target.value, false)}
          onPaste={(e) => {
            e.preventDefault();
            apply(i, e.clipboardData.getData("text"), true);
          }}
          onFocus={(e) => e.target.select()}
          onKeyDown={(e) => {
            if (e.key === "Backspace") {
              e.preventDefault();
              const r = applyBackspace(digits, i);
              setDigits(r.digits);
              focus(r.focus);
            } else if (e.key === "ArrowLeft") {
              e.preventDefault();
              focus(Math.max(0, i - 1));
            } else if (e.key === "ArrowRight") {
              e.preventDefault();
              focus(Math.min(digits.length - 1, i + 1));
            }
          }}
        />
      ))}
    </fieldset>
  );
}
