import { FailureView } from "../components/FailureView";
import { Illustration } from "../components/Illustration";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * email_verify: the magic link is on its way (spec §2); once it has outlived its time, 'Connection timed
 * out', whose Try again mails a new one (spec §8).
 */
export function EmailVerifyStep({ transitions, step, ui }: StepProps<"email_verify">) {
  const texts = useTexts();
  if (step.failure)
    return (
      <FailureView
        failure={step.failure}
        onRetry={() => void transitions.email.again()}
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
  return (
    <div className="lk-center">
      <Illustration name="mail" style={ui.illustrationStyle} animated />
      <h2 className="lk-title">{texts.checkYourEmail}</h2>
      <p className="lk-text">
        {texts.emailVerifyBody} <span className="lk-strong lk-email">{step.email}</span>
      </p>
      <p className="lk-text" style={{ marginTop: 8 }}>
        {texts.emailVerifyHint}
      </p>
    </div>
  );
}
