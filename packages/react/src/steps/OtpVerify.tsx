import { useState } from "react";
import { Illustration } from "../components/Illustration";
import { OtpInput } from "../components/OtpInput";
import { strings } from "../strings";
import type { StepProps } from "./types";

/** otp_verify: six boxes; 'Verifying...', then 'Verified!' and complete after 1 s (spec §2, §4). */
export function OtpVerifyStep({ flow, step, ui }: StepProps) {
  const [pasteError, setPasteError] = useState<string | null>(null);
  const status = step.status ?? "base";
  const error = pasteError ?? step.error?.message ?? null;
  return (
    <div className="lk-center">
      <Illustration name="mail" style={ui.illustrationStyle} />
      <h2 className="lk-title">{status === "success" ? strings.verified : strings.enterVerificationCode}</h2>
      <p className="lk-text">
        {strings.otpBody} <span className="lk-strong lk-email">{step.email}</span>
      </p>
      <OtpInput
        disabled={status !== "base"}
        error={!!error && status === "base"}
        status={status}
        onInvalid={setPasteError}
        onSubmit={(code) => {
          setPasteError(null);
          return flow.submitOtp(code);
        }}
      />
      <StatusLine status={status} error={status === "base" ? error : null} />
    </div>
  );
}

export function StatusLine({ status, error }: { status: string; error: string | null }) {
  if (status === "verifying")
    return (
      <div className="lk-status" aria-live="polite">
        {strings.verifying}
      </div>
    );
  // On success the title says 'Verified!'; the line stays for the layout.
  if (status === "success") return <div className="lk-status" data-kind="success" aria-live="polite" />;
  return (
    <div className="lk-status" data-kind="error" role={error ? "alert" : undefined}>
      {error}
    </div>
  );
}
