import { useState } from "react";
import { Illustration } from "../components/Illustration";
import { OtpInput } from "../components/OtpInput";
import { StatusLine } from "../components/StatusLine";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/** otp_verify: six boxes; 'Verifying...', then 'Verified!' and complete after 1 s (spec §2, §4). */
export function OtpVerifyStep({ transitions, step, ui }: StepProps<"otp_verify">) {
  const texts = useTexts();
  const [pasteError, setPasteError] = useState<string | null>(null);
  const status = step.status ?? "base";
  const error = pasteError ?? step.error?.message ?? null;
  return (
    <div className="lk-center">
      <Illustration name="mail" style={ui.illustrationStyle} />
      <h2 className="lk-title">{status === "success" ? texts.verified : texts.enterVerificationCode}</h2>
      <p className="lk-text">
        {texts.otpBody} <span className="lk-strong lk-email">{step.email}</span>
      </p>
      <OtpInput
        disabled={status !== "base"}
        error={!!error && status === "base"}
        status={status}
        onInvalid={setPasteError}
        onSubmit={(code) => {
          setPasteError(null);
          return transitions.otp.submit(code);
        }}
      />
      <StatusLine status={status} error={status === "base" ? error : null} />
    </div>
  );
}
