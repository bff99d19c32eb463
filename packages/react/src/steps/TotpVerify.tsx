import { useState } from "react";
import { FailureView } from "../components/FailureView";
import { Illustration } from "../components/Illustration";
import { OtpInput } from "../components/OtpInput";
import { StatusLine } from "../components/StatusLine";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/** totp_verify: 'Enter authenticator app code', six digits submitted automatically (spec §2, §4). */
export function TotpVerifyStep({ transitions, step, ui }: StepProps<"totp_verify">) {
  const texts = useTexts();
  const [pasteError, setPasteError] = useState<string | null>(null);
  const status = step.status ?? "base";
  const error = pasteError ?? step.error?.message ?? null;
  if (step.failure)
    return (
      <FailureView
        failure={step.failure}
        onRetry={() => void transitions.totp.retry()}
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
  return (
    <div className="lk-center">
      <Illustration name="authenticator" style={ui.illustrationStyle} />
      <h2 className="lk-title">{texts.enterAuthenticatorCode}</h2>
      <p className="lk-text">{texts.totpBody}</p>
      <OtpInput
        disabled={status !== "base"}
        error={!!error && status === "base"}
        status={status}
        onInvalid={setPasteError}
        onSubmit={(code) => {
          setPasteError(null);
          return transitions.totp.submit(code);
        }}
      />
      <StatusLine status={status} error={status === "base" ? error : null} />
    </div>
  );
}
