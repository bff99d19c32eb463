import { useState } from "react";
import { FailureView } from "../components/FailureView";
import { Illustration } from "../components/Illustration";
import { OtpInput } from "../components/OtpInput";
import { StatusLine } from "../components/StatusLine";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * otp_verify: six boxes; 'Verifying...', then 'Verified!' and complete after 1 s (spec §2, §4). The
 * service unreachable, the code expired or the request refused show their error views instead (spec §8).
 */
export function OtpVerifyStep({ transitions, step, ui }: StepProps<"otp_verify">) {
  const texts = useTexts();
  const [pasteError, setPasteError] = useState<string | null>(null);
  const status = step.status ?? "base";
  const error = pasteError ?? step.error?.message ?? null;
  if (step.failure)
    return (
      <FailureView
        failure={step.failure}
        onRetry={() =>
          void (step.failure === "timeout" ? transitions.email.again() : transitions.otp.retry())
        }
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
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
